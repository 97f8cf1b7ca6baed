"""Admin for collections. Deletions go through services so `collect_count` stays exact (STYLE.md)."""
from django.contrib import admin, messages
from django.urls import reverse

from apps.thingcollections import services
from apps.thingcollections.models import Collection, CollectionThing


class CollectionThingInline(admin.TabularInline):
    # Read-only: adding or removing here would bypass collect_count; the API and site do that.
    model = CollectionThing
    extra = 0
    can_delete = False
    fields = ("thing", "description", "added_by_app", "added")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    def view_on_site(self, obj):
        return reverse("collection-page", args=[obj.pk])

    list_display = ("id", "name", "creator", "created_by_app", "is_featured", "added", "modified")
    list_filter = ("is_featured",)
    list_select_related = ("creator", "created_by_app")
    actions = ("feature_collections", "unfeature_collections")
    search_fields = ("name", "creator__username")
    raw_id_fields = ("creator",)
    readonly_fields = ("created_by_app", "is_featured", "added", "modified")
    inlines = [CollectionThingInline]

    def delete_model(self, request, obj):
        services.collection_delete(collection=obj, user=obj.creator)

    def delete_queryset(self, request, queryset):
        for collection in queryset.select_related("creator"):
            services.collection_delete(collection=collection, user=collection.creator)

    def _set_featured(self, request, queryset, featured: bool) -> None:
        for collection in queryset:
            services.collection_set_featured(collection=collection, featured=featured)
        verb = "Featured" if featured else "Unfeatured"
        self.message_user(request, f"{verb} {queryset.count()} collection(s).", messages.SUCCESS)

    @admin.action(description="Feature", permissions=("change",))
    def feature_collections(self, request, queryset):
        self._set_featured(request, queryset, True)

    @admin.action(description="Unfeature", permissions=("change",))
    def unfeature_collections(self, request, queryset):
        self._set_featured(request, queryset, False)
