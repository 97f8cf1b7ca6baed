"""One path() per spec path (spec §4.8); the core middleware makes both slash forms answer."""
from django.urls import path

from apps.groups import views

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
]
