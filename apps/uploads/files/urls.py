"""Paths of a Thing's files and images, files, downloads (spec §4.2, §4.3, §4.1)."""
from django.urls import path

from apps.core.pipeline.routing import combine
from apps.uploads.files import views

thing = "things/<int:thing_id>"

urlpatterns: list = [
    # GET lists the files, POST starts an upload.
    path(
        f"{thing}/files",
        combine(views.ThingFilesView, views.ThingFileUploadStartView).as_view(),
        name="thing-files",
    ),
    path(f"{thing}/files/<int:file_id>", views.ThingFileDetailView.as_view(), name="thing-file-detail"),
    path(f"{thing}/images", views.ThingImagesView.as_view(), name="thing-images"),
    path(f"{thing}/images/<int:image_id>", views.ThingImageDetailView.as_view(), name="thing-image-detail"),
    path("files/<int:file_id>/", views.FileDetailView.as_view(), name="file-detail"),
    path("files/<int:file_id>/download", views.FileDownloadView.as_view(), name="file-download"),
    # A file's direct_url (docs/decisions.md: Wire versions): not an API view, no token asked or read.
    path("files/<int:file_id>/direct/<str:token>/<str:name>", views.file_direct, name="file-direct"),
    path("users/<username:username>/downloads", views.UserDownloadsView.as_view(), name="user-downloads"),
]
