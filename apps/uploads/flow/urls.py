"""Paths of the upload flow (spec §4.10): the avatar and cover starts (§4.1) and finalize (§4.3)."""
from django.urls import path

from apps.uploads.flow import views

urlpatterns: list = [
    path(
        "users/<username:username>/avatar-image",
        views.UserAvatarUploadStartView.as_view(),
        name="user-avatar-image",
    ),
    path(
        "users/<username:username>/cover-image",
        views.UserCoverUploadStartView.as_view(),
        name="user-cover-image",
    ),
    path("files/<int:upload_id>/finalize", views.UploadFinalizeView.as_view(), name="upload-finalize"),
    # The `thingiverse` wire's object-store POST (a relay in front of the store: answers 200, not 303).
    path("uploads/<int:upload_id>/store", views.upload_relay, name="upload-relay"),
]
