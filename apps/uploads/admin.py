"""Read-only admin lists of uploads, files and images. State changes go through services (STYLE.md):
the one action here re-runs the service's own check of pending uploads."""

from django.contrib import admin, messages
from django.urls import reverse

from apps.core.adminkit.sitelink import SitePageAdminMixin, site_page_answers
from apps.things import rules as thing_rules
from apps.uploads.flow import services
from apps.uploads.models import Image, ThingFile, Upload


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows of the upload flow change only through its services: no add, edit or delete here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Upload)
class UploadAdmin(ReadOnlyAdmin):
    list_display = ("id", "owner", "kind", "status", "filename", "size", "created", "expires_at")
    list_select_related = ("owner",)
    list_filter = ("status", "kind", "created")
    search_fields = ("owner__username", "filename", "key")
    date_hierarchy = "created"
    raw_id_fields = ("owner", "file", "image")
    actions = ("verify_now",)

    @admin.action(description="Check pending uploads in the store now")
    def verify_now(self, request, queryset):
        outcomes: dict[str, int] = {}
        for upload_id in queryset.filter(status=Upload.Status.PENDING).values_list("pk", flat=True):
            outcome = services.upload_verify(upload_id=upload_id)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items())) or "nothing pending"
        self.message_user(request, f"Checked: {summary}.", messages.INFO)


@admin.register(ThingFile)
class ThingFileAdmin(SitePageAdminMixin, ReadOnlyAdmin):
    def view_on_site(self, obj):
        return reverse("thing-page", args=[obj.thing_id])

    def site_page_visible(self, viewer, obj) -> bool:
        return thing_rules.thing_can_view(viewer, obj.thing)

    list_display = ("id", "name", "thing", "status", "size", "content_type", "download_count", "added")
    list_select_related = ("thing",)
    list_filter = ("status", "added")
    search_fields = ("name", "thing__name", "key")
    date_hierarchy = "added"
    raw_id_fields = ("thing",)


@admin.register(Image)
class ImageAdmin(SitePageAdminMixin, ReadOnlyAdmin):
    def view_on_site(self, obj):
        return reverse("thing-page", args=[obj.thing_id]) if obj.thing_id else reverse("make-page", args=[obj.copy_id])

    def site_page_visible(self, viewer, obj) -> bool:
        # A make's photo: the make's page, whose rule apps.makes (above this app) registers.
        if obj.thing_id:
            return thing_rules.thing_can_view(viewer, obj.thing)
        return site_page_answers("make", viewer, obj.copy_id)

    list_display = ("id", "name", "thing", "copy_id", "status", "size", "rank", "featured", "added")
    list_select_related = ("thing",)
    list_filter = ("status", "featured", "added")
    search_fields = ("name", "thing__name", "key")
    date_hierarchy = "added"
    raw_id_fields = ("thing",)
