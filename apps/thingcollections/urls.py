"""One path() per spec path (spec §4.5, and §4.1's collections lists); the core middleware makes both
slash forms answer."""
from django.urls import path

from apps.thingcollections import pages, views

collection = "collections/<int:collection_id>"
user = "users/<username:username>"

urlpatterns: list = [
    path("collections/", views.CollectionListView.as_view(), name="collection-list"),
    path(f"{collection}/", views.CollectionDetailView.as_view(), name="collection-detail"),
    path(f"{collection}/things", views.CollectionThingsView.as_view(), name="collection-things"),
    path(f"{collection}/thing/<int:thing_id>", views.CollectionThingView.as_view(), name="collection-thing"),
    # spec §4.1: `{all}` is an optional path segment.
    path(f"{user}/collections", views.UserCollectionsView.as_view(), name="user-collections"),
    path(f"{user}/collections/<str:all>", views.UserCollectionsAllView.as_view(), name="user-collections-all"),
    path(f"{user}/all-collected-things", views.UserCollectedThingsView.as_view(), name="user-collected-things"),
    # Site pages (session, CSRF): the collection's `absolute_url` and the writes made from it.
    path("collection:<int:collection_id>", pages.collection_page, name="collection-page"),
    path("collection:<int:collection_id>/edit", pages.collection_edit, name="collection-page-edit"),
    path("collection:<int:collection_id>/delete", pages.collection_delete, name="collection-page-delete"),
    path(
        "collection:<int:collection_id>/things/<int:thing_id>/remove",
        pages.collection_remove_thing,
        name="collection-page-remove",
    ),
    path("account/collections/new", pages.collection_new, name="collection-page-new"),
    path("thing:<int:thing_id>/collect", pages.thing_collect, name="thing-page-collect"),
]
