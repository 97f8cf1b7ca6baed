"""Admin for groups and group topics. Moderators hide a group with a reason (core.moderation)."""
from django.contrib import admin
from django.urls import reverse

from apps.core.domain.moderation import HideWithReasonAdminMixin
from apps.groups.models import Group, GroupMember, GroupThing, GroupTopic


class GroupMemberInline(admin.TabularInline):
    model = GroupMember
    extra = 0
    raw_id_fields = ("user",)
    readonly_fields = ("joined",)


class GroupThingInline(admin.TabularInline):
    # Read-only: featured ranks change through services (group lock, spec §3 rules).
    model = GroupThing
    extra = 0
    can_delete = False
    fields = ("thing", "rank", "added_by", "added")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Group)
class GroupAdmin(HideWithReasonAdminMixin, admin.ModelAdmin):
    def view_on_site(self, obj):
        return reverse("group-page", args=[obj.slug])

    list_display = (
        "id", "name", "slug", "creator", *HideWithReasonAdminMixin.moderation_list_display, "added",
        "modified",
    )
    list_select_related = ("creator",)
    list_filter = ("is_hidden",)
    search_fields = ("name", "slug", "creator__username")
    raw_id_fields = ("creator",)
    # Hiding is a state change with a reason: only the actions make it, never a checkbox.
    readonly_fields = ("image", "added", "modified", "is_hidden", "hidden_reason", "hidden_at", "hidden_by")
    inlines = [GroupMemberInline, GroupThingInline]
    actions = HideWithReasonAdminMixin.actions


@admin.register(GroupTopic)
class GroupTopicAdmin(admin.ModelAdmin):
    def view_on_site(self, obj):
        return reverse("group-page-topic", args=[obj.group.slug, obj.pk])

    list_display = ("id", "name", "group", "user", "pinned", "added", "modified")
    list_select_related = ("group", "user")
    list_filter = ("pinned",)
    search_fields = ("name", "group__name", "user__username")
    raw_id_fields = ("group", "user")
    readonly_fields = ("added", "modified")
