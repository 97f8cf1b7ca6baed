"""Admin for comments: moderators hide them with a reason (core.moderation) or delete them. Every change
goes through services, so the targets' comment_count stays exact (STYLE.md)."""
from django.contrib import admin
from django.urls import reverse

from apps.comments import services
from apps.comments.models import Comment
from apps.core.adminkit.sitelink import SitePageAdminMixin
from apps.core.domain.moderation import HideWithReasonAdminMixin
from apps.makes.selectors import make_page_visible
from apps.things import rules as thing_rules

MODERATION_FIELDS = ("is_hidden", "hidden_reason", "hidden_at", "hidden_by")


@admin.register(Comment)
class CommentAdmin(SitePageAdminMixin, HideWithReasonAdminMixin, admin.ModelAdmin):
    def view_on_site(self, obj):
        """The page the comment is shown on, at the comment."""
        if obj.thing_id:
            page = reverse("thing-page", args=[obj.thing_id])
        elif obj.make_id:
            page = reverse("make-page", args=[obj.make_id])
        else:
            page = reverse("group-page-topic", args=[obj.topic.group.slug, obj.topic_id])
        return f"{page}#comment-{obj.pk}"

    def site_page_visible(self, viewer, obj) -> bool:
        # The rule of the page the comment is shown on (a topic's page answers for staff, hidden or not).
        if obj.thing_id:
            return thing_rules.thing_can_view(viewer, obj.thing)
        if obj.make_id:
            return make_page_visible(viewer, obj.make_id)
        return True

    list_display = (
        "id", "target_type", "target_id", "user", "short_body", "is_deleted",
        *HideWithReasonAdminMixin.moderation_list_display, "added",
    )
    list_select_related = ("user",)
    list_filter = ("target_type", "is_hidden", "is_deleted")
    search_fields = ("body", "user__username")
    date_hierarchy = "added"
    # Bodies, targets and states change through the API and the actions (hide with a reason, unhide,
    # delete), never through a form: a form would bypass the rendered HTML and the counters.
    fields = (
        "target_type", "thing", "make", "topic", "parent", "depth", "user", "body", "body_html", "is_deleted",
        "counted", *MODERATION_FIELDS, "added", "modified",
    )
    readonly_fields = fields
    actions = HideWithReasonAdminMixin.actions

    @admin.display(description="body")
    def short_body(self, comment) -> str:
        return comment.body if len(comment.body) <= 80 else comment.body[:79] + "…"

    def has_add_permission(self, request):
        return False

    def on_hidden(self, obj):
        services.comment_count_reconcile(comment=obj)

    def on_unhidden(self, obj):
        services.comment_count_reconcile(comment=obj)

    def delete_model(self, request, obj):
        services.comment_remove(comment_id=obj.pk)

    def delete_queryset(self, request, queryset):
        # Newest first: replies before their parents, so a thread deleted whole leaves no placeholder.
        for pk in queryset.order_by("-pk").values_list("pk", flat=True):
            services.comment_remove(comment_id=pk)
