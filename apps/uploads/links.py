"""URLs and shapes of files and images as the API shows them (docs/decisions.md: File, Image).

Store objects are never public: every URL of one is a short-lived presigned GET made by store.py.
Signing is local computation (an HMAC), so building these for a page of 100 rows costs no round trip.

Things' `default_image`/`thumbnail` (through apps.things.hooks) read the image the Thing's pointer
names, joined into its query, and the render key it keeps; makes' thumbnails read
`thing_thumbnail_from_row`, which takes the JSON row the selectors annotate. Never a query here.
"""
import json
from datetime import UTC, datetime
from functools import cache

from urllib.parse import quote

from django.templatetags.static import static
from django.utils.crypto import salted_hmac

from apps.accounts.links import iso8601
from apps.core.pipeline.api import api_url, site_url
from apps.uploads import store

PLACEHOLDER_THUMBNAIL = "things/placeholder.png"

IMAGE_TYPES = ("thumb", "preview", "display")
IMAGE_SIZES = ("large", "medium", "small", "tiny")
# The variant a Thing's `thumbnail` shows, best first.
THUMBNAIL_PREFERENCE = (("thumb", "medium"), ("thumb", "large"), ("thumb", "small"), ("preview", "medium"))
# The variant a collection's `preview_image` shows, best first.
PREVIEW_PREFERENCE = (("preview", "large"), ("preview", "medium"), ("display", "medium"), ("thumb", "large"))


def store_url(key: str, *, filename: str | None = None) -> str:
    return store.presigned_get_url(key, filename=filename)  # valid for presign.SIGNED_URL_SECONDS


@cache
def placeholder_thumbnail_url() -> str:
    return site_url(static(PLACEHOLDER_THUMBNAIL))


# --- files ------------------------------------------------------------------------------------------


def file_api_url(file_id: int) -> str:
    return api_url(f"files/{file_id}")


def file_download_url(file_id: int) -> str:
    return api_url(f"files/{file_id}/download")


# A file's `direct_url` (docs/decisions.md: Wire versions): the files a printer or slicer takes.
PRINTABLE_EXTENSIONS = frozenset({"stl", "obj", "3mf", "amf", "ply", "gcode", "gco", "g", "x3g", "bgcode"})


def file_is_printable(name: str) -> bool:
    return name.rpartition(".")[2].lower() in PRINTABLE_EXTENSIONS if "." in name else False


def file_direct_token(file_id: int, key: str) -> str:
    """The capability in a file's direct URL: an HMAC of the file and its stored object (a replaced
    object, a deleted file: the old URL stops working)."""
    return salted_hmac("thingyard.file-direct", f"{int(file_id)}:{key}").hexdigest()[:32]


def file_direct_url(file) -> str | None:
    """A URL on the service that answers the file's bytes to a plain GET, with or without an
    Authorization header (a presigned store URL fails when a client sends its bearer header along);
    None for a file that is not printable (a PDF, a picture), as on the live service."""
    if not file_is_printable(file.name):
        return None
    name = quote(file.name.replace("/", "_"), safe="")
    return api_url(f"files/{file.pk}/direct/{file_direct_token(file.pk, file.key)}/{name}")


def file_public_url(thing_id: int, file_id: int) -> str:
    """The Thing's site page, at the file's entry in its files section."""
    return site_url(f"thing:{thing_id}#file-{file_id}")


def file_thumbnail_url(file) -> str:
    return store_url(file.thumbnail_key) if file.thumbnail_key else placeholder_thumbnail_url()


def file_date(value: datetime) -> str:
    """docs/decisions.md (compat): File `date` is exactly `YYYY-MM-DD hh:mm:ss` in UTC."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def formatted_size(size: int) -> str:
    """Binary units, one decimal: `512 B`, `1.2 KB`, `1.2 MB`, `3.0 GB`."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def file_default_image(file) -> dict | None:
    """A file's render in the image shape, so clients that read `default_image.sizes` find it: its
    render image (docs/decisions.md: Thing images; the selectors join it), or, while a render made before
    renders were images is still being sized, the render itself under the file's id; null until
    processing rendered one. Always the published Image shape, `status` included (issue 14, finding 11)."""
    image = _loaded_render_image(file)
    if image is not None and image.status == "live":
        return image_dict(id=image.pk, name=image.name, key=image.key, added=image.added, rank=image.rank,
                          featured=image.featured, sizes=image.sizes, status=image.status)
    if not file.thumbnail_key:
        return None
    url = store_url(file.thumbnail_key)
    return {
        "id": file.pk,
        "name": file.name,
        "url": url,
        "added": iso8601(file.added),
        "rank": 0,
        "featured": False,
        "sizes": [{"type": t, "size": s, "url": url} for t in IMAGE_TYPES for s in IMAGE_SIZES[:3]],
        "status": "live",  # the render exists: it is what processing produced
    }


def _loaded_render_image(file):
    # Only what the query joined (select_related): never a query per file here.
    if "render_image" not in file._state.fields_cache:
        return None
    return file._state.fields_cache["render_image"]


def file_geometry(file) -> dict | None:
    """docs/decisions.md File `geometry`: the mesh analysis, null before processing and for other files."""
    return file.geometry or None


# --- images -----------------------------------------------------------------------------------------


def image_sizes(sizes, *, type: str | None = None, size: str | None = None) -> list[dict]:
    """The rendered variants as `[{type, size, url}]`, optionally only one type (and size)."""
    out = []
    for variant in sizes or ():
        if not isinstance(variant, dict) or not variant.get("key"):
            continue
        if (type and variant.get("type") != type) or (size and variant.get("size") != size):
            continue
        out.append({"type": variant.get("type"), "size": variant.get("size"), "url": store_url(variant["key"])})
    return out


def image_dict(*, id, name, key, added, rank, featured, sizes, status=None, type=None, size=None) -> dict:
    data = {
        "id": id,
        "name": name,
        "url": store_url(key),
        "added": iso8601(added),
        "rank": rank,
        "featured": featured,
        "sizes": image_sizes(sizes, type=type, size=size),
    }
    if status is not None:
        data["status"] = status
    return data


def image_from_row(row) -> dict | None:
    """The image object of a JSON row annotated by apps.uploads.files.selectors (default_image_row) (or None)."""
    row = _json(row)
    if not row:
        return None
    return image_dict(
        id=row["id"],
        name=row["name"],
        key=row["key"],
        added=_datetime(row["added"]),
        rank=row["rank"],
        featured=bool(row["featured"]),
        sizes=_json(row.get("sizes")),
    )


def thing_thumbnail_from_row(image_row, file_thumbnail_key, preference=THUMBNAIL_PREFERENCE) -> str | None:
    """A Thing's thumbnail: its default image's thumb (else its original), else its first file's
    render; None when it has neither (the caller shows the placeholder). `preference`: the variants
    to look for, best first."""
    row = _json(image_row)
    if row:
        return _image_url(_json(row.get("sizes")), row["key"], preference)
    if file_thumbnail_key:
        return store_url(file_thumbnail_key)
    return None


def _image_url(sizes, key: str, preference) -> str:
    # The first variant of `preference` the image has, else its original.
    by_variant = {(v.get("type"), v.get("size")): v.get("key") for v in sizes or () if isinstance(v, dict)}
    for variant in preference:
        found = by_variant.get(variant)
        if found:
            return store_url(found)
    return store_url(key)


# --- a Thing's pictures, through its pointers (apps.things.hooks.ThingImages) ---------------------------

_NOT_JOINED = object()


def _joined_image(thing):
    # Only what the Thing's query joined (files.selectors.THING_PICTURE_RELATED): never a query here.
    # _NOT_JOINED: loaded without its pictures (the image, or None when it has none, otherwise).
    return thing._state.fields_cache.get("default_image", _NOT_JOINED)


def _thing_picture_url(thing, preference) -> str | None:
    image = _joined_image(thing)
    if image is _NOT_JOINED:
        return None
    if image is not None:
        return _image_url(image.sizes, image.key, preference)
    # Loaded with the image (files.selectors.THING_PICTURE_FIELDS): never a deferred field's query.
    key = thing.__dict__.get("file_thumbnail_key")
    return store_url(key) if key else None


def thing_thumbnail_url_from_pointers(thing) -> str | None:
    """A Thing's thumbnail (thing_thumbnail_from_row's rules) from the default image its query joined,
    else its first file's render; None for a Thing loaded without them, or without a picture."""
    return _thing_picture_url(thing, THUMBNAIL_PREFERENCE)


def thing_preview_url_from_pointers(thing) -> str | None:
    """A larger picture of a Thing than its thumbnail (a collection's `preview_image`), from the same
    rows; None without a picture."""
    return _thing_picture_url(thing, PREVIEW_PREFERENCE)


def thing_default_image_from_pointers(thing) -> dict | None:
    """A Thing's `default_image` (docs/decisions.md) from the image its query joined, or None: the
    shape image_from_row gives the same image."""
    image = _joined_image(thing)
    if image is None or image is _NOT_JOINED:
        return None
    return image_dict(id=image.pk, name=image.name, key=image.key, added=image.added, rank=image.rank,
                      featured=image.featured, sizes=image.sizes)


def _json(value):
    # PostgreSQL hands JSON back decoded; SQLite (the quick start) may hand back the text.
    return json.loads(value) if isinstance(value, str) else value


def _datetime(value) -> datetime:
    if isinstance(value, datetime):
        return value
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
