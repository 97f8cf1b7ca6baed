"""Paths of files, images, downloads (spec §4.2, §4.3, §4.1), included by apps/uploads/urls.py.

`things/<id>/files` itself is registered there, as combine(ThingFilesView, ThingFileUploadStartView).
"""
from django.urls import path

from apps.uploads import views_files as views

thing = "things/<int:thing_id>"

urlpatterns: list = [
    path(f"{thing}/files/<int:file_id>", views.ThingFileDetailView.as_view(), name="thing-file-detail"),
    path(f"{thing}/images", views.ThingImagesView.as_view(), name="thing-images"),
    path(f"{thing}/images/<int:image_id>", views.ThingImageDetailView.as_view(), name="thing-image-detail"),
    path("files/<int:file_id>/", views.FileDetailView.as_view(), name="file-detail"),
    path("files/<int:file_id>/download", views.FileDownloadView.as_view(), name="file-download"),
    path("users/<username:username>/downloads", views.UserDownloadsView.as_view(), name="user-downloads"),
]
