"""Absolute URLs of a Thing as the API shows them (one place for every Thing serializer)."""
from functools import cache

from django.templatetags.static import static

from apps.core.pipeline.api import api_url, site_url
from apps.things.hooks import thing_images

PLACEHOLDER_THUMBNAIL = "things/placeholder.png"
SUB_COLLECTIONS = ("files", "images", "likes", "ancestors", "derivatives", "tags", "categories")


def thing_api_url(thing_id: int, suffix: str = "") -> str:
    return api_url(f"things/{thing_id}" + (f"/{suffix}" if suffix else ""))


def thing_public_url(thing_id: int) -> str:
    """spec §2: `url` is the public site page of the Thing."""
    return site_url(f"thing:{thing_id}")


def thing_thumbnail_url(thing) -> str:
    """The default image's thumbnail, else its first file's render, else a static placeholder.

    Reads the rows selectors._with_pictures joins through the Thing's pointers (hooks.thing_images); a
    Thing loaded without them (never a query here) shows the placeholder."""
    images = thing_images()
    url = images.thumbnail_url(thing) if images is not None else None
    return url or _placeholder_url()


def thing_preview_url(thing) -> str:
    """A larger picture of the Thing than its thumbnail (a collection's `preview_image`): the default
    image's preview size, else its first file's render, else the placeholder. Same joined rows."""
    images = thing_images()
    url = images.preview_url(thing) if images is not None else None
    return url or _placeholder_url()


def thing_default_image(thing) -> dict | None:
    """docs/decisions.md `default_image`: the featured live image, else the first by rank; or None."""
    images = thing_images()
    return images.default_image(thing) if images is not None else None


@cache
def _placeholder_url() -> str:
    return site_url(static(PLACEHOLDER_THUMBNAIL))
