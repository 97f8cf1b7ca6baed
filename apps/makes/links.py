"""Absolute URLs of a copy (make) as the API shows them: one place for every serializer and page."""
from apps.core.pipeline.api import api_url, site_url
from apps.uploads import links as upload_links


def make_api_url(make_id: int, suffix: str = "") -> str:
    return api_url(f"copies/{make_id}" + (f"/{suffix}" if suffix else ""))


def make_public_url(make_id: int) -> str:
    """The make's site page (pages.make_page), as a Thing's is /thing:<id>."""
    return site_url(f"make:{make_id}")


def make_thumbnail_url(make) -> str:
    """The featured live image's thumb, else the first live image's by rank, else the placeholder.

    Reads the `default_image_row` annotation of selectors.make_queryset: never a query here."""
    url = upload_links.thing_thumbnail_from_row(getattr(make, "default_image_row", None), None)
    return url or upload_links.placeholder_thumbnail_url()


def make_preview_url(make) -> str:
    """A larger picture of the copy than its thumbnail (the live copy's `preview_image`): the same image's
    preview size, else the placeholder. The same joined row: never a query here."""
    row = getattr(make, "default_image_row", None)
    url = upload_links.thing_thumbnail_from_row(row, None, upload_links.PREVIEW_PREFERENCE)
    return url or upload_links.placeholder_thumbnail_url()
