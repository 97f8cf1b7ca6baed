"""One path() per spec path (spec §4.2 files/images, §4.3, §4.1 avatar/cover/downloads); the core
middleware makes both slash forms answer."""

from django.urls import path

from apps.core.routing import combine
from apps.uploads import views
from apps.uploads.urls_files import urlpatterns as files_urlpatterns
from apps.uploads.urls_pages import urlpatterns as page_urlpatterns
from apps.uploads.views_files import ThingFilesView

urlpatterns: list = [
    # GET lists the files (views_files.py), POST starts an upload (views.py).
    path(
        "things/<int:thing_id>/files",
        combine(ThingFilesView, views.ThingFileUploadStartView).as_view(),
        name="thing-files",
    ),
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
] + files_urlpatterns + page_urlpatterns
