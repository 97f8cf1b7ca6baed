"""Admin for groups and group topics."""
from django.contrib import admin

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
class GroupAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "slug", "creator", "added", "modified")
    list_select_related = ("creator",)
    search_fields = ("name", "slug", "creator__username")
    raw_id_fields = ("creator",)
    readonly_fields = ("image", "added", "modified")
    inlines = [GroupMemberInline, GroupThingInline]


@admin.register(GroupTopic)
class GroupTopicAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "group", "user", "pinned", "added", "modified")
    list_select_related = ("group", "user")
    list_filter = ("pinned",)
    search_fields = ("name", "group__name", "user__username")
    raw_id_fields = ("group", "user")
    readonly_fields = ("added", "modified")
