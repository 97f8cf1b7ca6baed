"""Shapes and assertions shared by the makes tests."""
from apps.things.tests.helpers import ISO, SHORT_THING_KEYS  # noqa: F401

USER_SUMMARY_KEYS = {"id", "name", "first_name", "last_name", "url", "public_url", "thumbnail"}
# docs/decisions.md Copy, plus `modified` and `comment_count`.
COPY_KEYS = {
    "id", "url", "public_url", "added", "modified", "like_count", "comment_count", "description", "is_liked",
    "creator", "thing", "thumbnail", "images_url",
}
IMAGE_KEYS = {"id", "name", "url", "added", "rank", "featured", "sizes", "status"}
# GET /copies/{id}/images and …/images/{id}: the image itself, with its processing_error (issue 23).
IMAGE_STATE_KEYS = IMAGE_KEYS | {"processing_error"}
