"""The site's pages of Things (session login): none of them is part of the REST API. Their shapes
cannot collide with an API path (docs/decisions.md: Addresses)."""

from django.urls import path

from apps.things.pages import browse, edit, thing

urlpatterns: list = [
    path("", browse.index, name="index"),
    path("browse/categories", browse.category_index, name="browse-categories"),
    path("browse/categories/<str:slug>", browse.category_page, name="browse-category"),
    path("browse/tags/<str:tag>", browse.tag_page, name="browse-tag"),
    path("browse/newest", browse.browse_list, {"kind": "newest"}, name="browse-newest"),
    path("browse/popular", browse.browse_list, {"kind": "popular"}, name="browse-popular"),
    path("browse/featured", browse.browse_list, {"kind": "featured"}, name="browse-featured"),
    # The Thing's `url` (spec §2) and the writes made from it.
    path("thing:<int:thing_id>", thing.thing_page, name="thing-page"),
    path("thing:<int:thing_id>/like", thing.thing_like, name="thing-page-like"),
    path("thing:<int:thing_id>/watch", thing.thing_watch, name="thing-page-watch"),
    path("thing:<int:thing_id>/publish", thing.thing_publish, name="thing-page-publish"),
    path("thing:<int:thing_id>/delete", thing.thing_delete, name="thing-page-delete"),
    path("thing:<int:thing_id>/edit", edit.thing_edit, name="thing-edit"),
    path("new", edit.thing_new, name="thing-new"),
]
