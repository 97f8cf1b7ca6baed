"""One path() per spec path (spec §4.8); the core middleware makes both slash forms answer."""
from django.urls import path

from apps.groups import pages, views

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
    path("groups/<slug:slug>", pages.group_page, name="group-page"),
    path("groups/<slug:slug>/join", pages.group_join, name="group-page-join"),
    path("groups/<slug:slug>/leave", pages.group_leave, name="group-page-leave"),
    path("groups/<slug:slug>/topics/new", pages.topic_new, name="group-page-topic-new"),
    path("groups/<slug:slug>/topics/<int:topic_id>", pages.topic_page, name="group-page-topic"),
]
