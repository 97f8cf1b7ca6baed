"""One path() per spec path (spec §4.8); the core middleware makes both slash forms answer."""
from django.urls import path, register_converter

from apps.groups import pages, views


class GroupSlugConverter:
    """A group's slug in a site path, never only digits: `/groups/123` (without its slash) is the API's
    group 123, which the optional-slash middleware finds only if no site route takes the path first."""

    regex = r"(?![0-9]+(?:/|$))[-a-zA-Z0-9_]+"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(GroupSlugConverter, "group_slug")

group = "groups/<int:group_id>"
topic = "group-topics/<int:topic_id>"

urlpatterns: list = [
    path("groups/", views.GroupListView.as_view(), name="group-list"),
    path(f"{group}/", views.GroupDetailView.as_view(), name="group-detail"),
    path(f"{group}/image", views.GroupImageView.as_view(), name="group-image"),
    path(f"{group}/members", views.GroupMembersView.as_view(), name="group-members"),
    path(f"{group}/members/<int:user_id>", views.GroupMemberView.as_view(), name="group-member"),
    path(f"{group}/things", views.GroupThingsView.as_view(), name="group-things"),
    path(f"{group}/things/<int:thing_id>", views.GroupThingView.as_view(), name="group-thing"),
    path(f"{group}/group-topics", views.GroupTopicsView.as_view(), name="group-topics"),
    path(f"{topic}/", views.GroupTopicDetailView.as_view(), name="group-topic-detail"),
    path(f"{topic}/pin", views.GroupTopicPinView.as_view(), name="group-topic-pin"),
    # Site pages (session, CSRF). A group's page is its `public_url`, /groups/<slug>: the API's own paths
    # take an integer id there, so a slug of digits only is the API's (docs/decisions.md).
    path("browse/groups", pages.group_list_page, name="group-list-page"),
    path("groups/<group_slug:slug>", pages.group_page, name="group-page"),
    path("groups/<group_slug:slug>/join", pages.group_join, name="group-page-join"),
    path("groups/<group_slug:slug>/follow", pages.group_follow, name="group-page-follow"),
    path("groups/<group_slug:slug>/leave", pages.group_leave, name="group-page-leave"),
    path("groups/<group_slug:slug>/topics/new", pages.topic_new, name="group-page-topic-new"),
    path("groups/<group_slug:slug>/topics/<int:topic_id>", pages.topic_page, name="group-page-topic"),
]
