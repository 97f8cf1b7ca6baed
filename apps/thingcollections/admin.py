"""Admin for collections. Deletions go through services so `collect_count` stays exact (STYLE.md)."""
from django.contrib import admin

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
    list_display = ("id", "name", "creator", "created_by_app", "added", "modified")
    list_select_related = ("creator", "created_by_app")
    search_fields = ("name", "creator__username")
    raw_id_fields = ("creator",)
    readonly_fields = ("created_by_app", "added", "modified")
    inlines = [CollectionThingInline]

    def delete_model(self, request, obj):
        services.collection_delete(collection=obj, user=obj.creator)

    def delete_queryset(self, request, queryset):
        for collection in queryset.select_related("creator"):
            services.collection_delete(collection=collection, user=collection.creator)
