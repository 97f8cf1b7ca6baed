"""Admin for copies (makes): moderators hide (with a reason) and unhide; deletions go through services,
so the Thing's make_count stays the number of its visible makes (STYLE.md)."""
from django.contrib import admin
from django.urls import reverse

from apps.core.adminkit.sitelink import SitePageAdminMixin
from apps.core.domain.moderation import HideWithReasonAdminMixin
from apps.makes import selectors, services
from apps.makes.models import Make


@admin.register(Make)
class MakeAdmin(SitePageAdminMixin, HideWithReasonAdminMixin, admin.ModelAdmin):
    def view_on_site(self, obj):
        return reverse("make-page", args=[obj.pk])

    def site_page_visible(self, viewer, obj) -> bool:
        return selectors.make_page_visible(viewer, obj.pk)  # a make of a draft or private Thing: not for staff

    list_display = (
        "id", "thing", "creator", "like_count", "comment_count",
        *HideWithReasonAdminMixin.moderation_list_display, "added",
    )
    list_select_related = ("thing", "creator")
    list_filter = ("is_hidden", "added")
    search_fields = ("description", "thing__name", "creator__username")
    date_hierarchy = "added"
    raw_id_fields = ("thing", "creator")
    fields = (
        "thing", "creator", "description", "like_count", "comment_count",
        "is_hidden", "hidden_reason", "hidden_at", "hidden_by", "added", "modified",
    )
    # Hiding is an action with a reason (and a counter to follow); counters belong to the services.
    readonly_fields = (
        "thing", "creator", "like_count", "comment_count",
        "is_hidden", "hidden_reason", "hidden_at", "hidden_by", "added", "modified",
    )
    actions = HideWithReasonAdminMixin.actions

    def has_add_permission(self, request):
        # Makes are posted by their creators through the upload flow, never by moderators.
        return False

    def on_hidden(self, obj):
        services.make_hidden_changed(make=obj)

    def on_unhidden(self, obj):
        services.make_hidden_changed(make=obj)

    def delete_model(self, request, obj):
        services.make_delete(make=obj)

    def delete_queryset(self, request, queryset):
        for make in queryset.order_by("pk"):
            services.make_delete(make=make)
