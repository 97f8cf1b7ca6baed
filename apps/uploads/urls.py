"""One path() per spec path (spec §4.2 files/images/package-url, §4.3, §4.1 avatar/cover/downloads), from
each part of uploads, and the site's pages of files, images and uploads (session login, CSRF on every
POST; not part of the REST API). The core middleware makes both slash forms answer."""
from django.urls import path

from apps.uploads import pages
from apps.uploads.files.urls import urlpatterns as files_urlpatterns
from apps.uploads.flow.urls import urlpatterns as flow_urlpatterns
from apps.uploads.packages.urls import urlpatterns as packages_urlpatterns

thing = "thing:<int:thing_id>"

page_urlpatterns: list = [
    path(f"{thing}/files/<int:file_id>/download", pages.file_download_page, name="file-download-page"),
    path(f"{thing}/files/status", pages.thing_files_status, name="thing-files-status"),
    # "Open in slicer" (apps/uploads/slicers.py): the bytes for a slicer, by a signed link, no session.
    path("files/<int:file_id>/open/<str:token>/<str:name>", pages.file_open, name="file-open"),
    path(f"{thing}/package", pages.thing_package_page, name="thing-package-page"),
    path(f"{thing}/uploads", pages.thing_upload_start, name="thing-upload-start"),
    path(
        "account/uploads/<str:field>", pages.account_image_upload_start, name="account-image-upload-start"
    ),
    path("account/uploads/<int:upload_id>/finalize", pages.upload_finalize_page, name="upload-finalize-page"),
    path(f"{thing}/files/<int:file_id>/delete", pages.file_delete_page, name="file-delete-page"),
    path(f"{thing}/images/<int:image_id>/delete", pages.image_delete_page, name="image-delete-page"),
    path(f"{thing}/files/<int:file_id>/retry", pages.file_retry_page, name="file-retry-page"),
    path(f"{thing}/images/<int:image_id>/retry", pages.image_retry_page, name="image-retry-page"),
    path(f"{thing}/images/<int:image_id>/feature", pages.image_feature_page, name="image-feature-page"),
    path(f"{thing}/images/<int:image_id>/move", pages.image_move_page, name="image-move-page"),
    path(f"{thing}/images/order", pages.image_order_page, name="image-order-page"),
]

urlpatterns: list = [*files_urlpatterns, *flow_urlpatterns, *packages_urlpatterns, *page_urlpatterns]
