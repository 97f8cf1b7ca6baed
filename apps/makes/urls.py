"""One path() per spec path (spec §4.4, the copies and prints rows of §4.2, §4.1 /users/{username}/copies)
and the make's site page; the core middleware makes both slash forms answer."""
from django.urls import path

from apps.makes import pages, views

copy = "copies/<int:copy_id>"

urlpatterns: list = [
    path("things/<int:thing_id>/prints", views.ThingPrintsView.as_view(), name="thing-prints"),
    path("things/<int:thing_id>/copies", views.ThingCopiesView.as_view(), name="thing-copies"),
    path("copies/", views.CopyListView.as_view(), name="copy-list"),
    path(f"{copy}/", views.CopyDetailView.as_view(), name="copy-detail"),
    path(f"{copy}/images", views.CopyImagesView.as_view(), name="copy-images"),
    path(f"{copy}/images/<int:image_id>", views.CopyImageDetailView.as_view(), name="copy-image-detail"),
    path(f"{copy}/likes", views.CopyLikesView.as_view(), name="copy-likes"),
    path("users/<username:username>/copies", views.UserCopiesView.as_view(), name="user-copies"),
    # Site pages (session, CSRF): the make's `public_url` and its writes, "I made one" on a Thing.
    path("make:<int:make_id>", pages.make_page, name="make-page"),
    path("make:<int:make_id>/edit", pages.make_edit, name="make-page-edit"),
    path("make:<int:make_id>/like", pages.make_like, name="make-page-like"),
    path("make:<int:make_id>/delete", pages.make_delete, name="make-page-delete"),
    path("make:<int:make_id>/images/<int:image_id>/retry", pages.make_image_retry, name="make-page-image-retry"),
    path("thing:<int:thing_id>/makes/upload", pages.make_upload_start, name="make-page-upload"),
]
