"""Absolute URLs of a Thing as the API shows them (one place for every Thing serializer)."""
from functools import cache

from django.templatetags.static import static

from apps.core.api import api_url, site_url

PLACEHOLDER_THUMBNAIL = "things/placeholder.png"
SUB_COLLECTIONS = ("files", "images", "likes", "ancestors", "derivatives", "tags", "categories")


def thing_api_url(thing_id: int, suffix: str = "") -> str:
    return api_url(f"things/{thing_id}" + (f"/{suffix}" if suffix else ""))


def thing_public_url(thing_id: int) -> str:
    """spec §2: `url` is the public site page of the Thing."""
    return site_url(f"thing:{thing_id}")


def thing_thumbnail_url(thing) -> str:
    """The default image's thumbnail once images exist (uploads), else a static placeholder."""
    url = getattr(thing, "default_thumbnail_url", None)
    return url or _placeholder_url()


@cache
def _placeholder_url() -> str:
    return site_url(static(PLACEHOLDER_THUMBNAIL))
