"""Assertions shared by the Things API tests."""
import re

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")

SHORT_THING_KEYS = {
    "id", "name", "url", "public_url", "thumbnail", "creator", "is_published", "is_wip", "like_count",
    "added",
}
SUB_COLLECTIONS = ("files", "images", "likes", "ancestors", "derivatives", "tags", "categories")
THING_KEYS = SHORT_THING_KEYS | {
    "modified", "is_private", "ratings_enabled", "is_liked", "is_watched", "comment_count", "make_count",
    "collect_count", "file_count", "description", "instructions", "license", "category", "tag_names",
    "default_image", "print_settings",
} | set(SUB_COLLECTIONS) | {f"{name}_url" for name in SUB_COLLECTIONS} | {
    # docs/decisions.md: Wire versions, the additive fields every version serves.
    "description_html", "instructions_html", "details", "download_count", "view_count", "remix_count",
    "root_comment_count",
}
