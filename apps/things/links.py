"""Absolute URLs of a Thing as the API shows them (one place for every Thing serializer)."""
from functools import cache

from django.templatetags.static import static

from apps.core.api import api_url, site_url
from apps.uploads import links as upload_links

PLACEHOLDER_THUMBNAIL = "things/placeholder.png"
SUB_COLLECTIONS = ("files", "images", "likes", "ancestors", "derivatives", "tags", "categories")


def thing_api_url(thing_id: int, suffix: str = "") -> str:
    return api_url(f"things/{thing_id}" + (f"/{suffix}" if suffix else ""))


def thing_public_url(thing_id: int) -> str:
    """spec §2: `url` is the public site page of the Thing."""
    return site_url(f"thing:{thing_id}")


def thing_thumbnail_url(thing) -> str:
    """The default image's thumbnail, else its first file's render, else a static placeholder.

    Reads the annotations of selectors._with_default_image; a Thing loaded without them (never a
    query here) shows the placeholder."""
    url = None
    if hasattr(thing, "default_image_row"):
        url = upload_links.thing_thumbnail_from_row(thing.default_image_row, thing.first_file_thumbnail_key)
    return url or _placeholder_url()


def thing_preview_url(thing) -> str:
    """A larger picture of the Thing than its thumbnail (a collection's `preview_image`): the default
    image's preview size, else its first file's render, else the placeholder. Same annotations."""
    url = None
    if hasattr(thing, "default_image_row"):
        url = upload_links.thing_thumbnail_from_row(
            thing.default_image_row, thing.first_file_thumbnail_key, upload_links.PREVIEW_PREFERENCE
        )
    return url or _placeholder_url()


def thing_default_image(thing) -> dict | None:
    """DECISIONS.md `default_image`: the featured live image, else the first by rank; or None."""
    return upload_links.image_from_row(getattr(thing, "default_image_row", None))


@cache
def _placeholder_url() -> str:
    return site_url(static(PLACEHOLDER_THUMBNAIL))
