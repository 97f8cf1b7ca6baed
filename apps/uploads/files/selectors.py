"""Reads of a Thing's files and images and of downloads, restricted to what the caller may see.

Visibility: a Thing's files and images follow the Thing (apps.things.selectors.thing_get_for_viewer:
401/403/404). Its owner sees every file and image, still processing or failed too; everyone else only
the live ones (a half-processed upload is not part of the published design yet).
"""
import json
from functools import cache

from django.conf import settings
from django.db.models import Exists, JSONField, OuterRef, QuerySet, Subquery
from django.db.models.functions import JSONObject
from django.utils import timezone

from apps.core.domain.exceptions import NotFound, PermissionDenied
from apps.core.pipeline.lookups import id_or_404
from apps.things import rules as thing_rules
from apps.things import selectors as thing_selectors
from apps.things.models import Thing
from apps.uploads import rules
from apps.uploads.models import RENDERS_LAST, Download, Image, ProcessingStatus, ThingFile

LIVE = ProcessingStatus.LIVE


def _sees_everything(viewer, thing) -> bool:
    return thing_rules.thing_is_owner(viewer, thing)


# --- A Thing's pictures: what every Thing query reads them from, and what they must be ------------------
# Thing.default_image and Thing.file_thumbnail_key (docs/decisions.md "A Thing's pictures as pointers")
# are kept by files.services.thing_pictures_refresh from the rules below; every Thing queryset joins the
# default image (registered with apps.things.hooks) and links reads what was joined.

# What the Thing's queries load: the pointer, of the image what links shows of it, and the render key.
THING_PICTURE_RELATED = ("default_image",)
THING_PICTURE_FIELDS = (
    "default_image", "default_image__name", "default_image__key", "default_image__added",
    "default_image__rank", "default_image__featured", "default_image__sizes", "file_thumbnail_key",
)


@cache
def thing_picture_deferred() -> tuple[str, ...]:
    """The image's columns a Thing query leaves out (defer(): a query loading every column of the Thing)."""
    loaded = set(THING_PICTURE_FIELDS)
    return tuple(
        f"default_image__{field.name}"
        for field in Image._meta.concrete_fields
        if not field.primary_key and f"default_image__{field.name}" not in loaded
    )


def image_order() -> list:
    """A Thing's images: the uploaded ones by rank (then the oldest), then its files' renders
    (docs/decisions.md: Thing images)."""
    return [RENDERS_LAST, "rank", "added", "id"]


def default_image_order() -> list:
    """The featured image first, then the images' order (docs/decisions.md: `default_image`): a Thing
    whose only picture is the render of its STL shows that render."""
    return ["-featured", *image_order()]


def _default_images(**owner) -> QuerySet:
    return Image.objects.filter(status=LIVE, **owner).order_by(*default_image_order())


def _rendered_files(outer: str) -> QuerySet:
    # The thumbnail's fallback: the Thing's live files that have a render, the first added first.
    return ThingFile.objects.filter(thing_id=OuterRef(outer), status=LIVE).exclude(thumbnail_key="").order_by(
        "added", "id"
    )


def thing_default_image_id(outer: str = "pk") -> Subquery:
    """Correlated subquery (OuterRef `outer` = the Thing's id): the id of its default image, what
    Thing.default_image points at (its featured live image, else the first live one by the images' order)."""
    return Subquery(_default_images(thing_id=OuterRef(outer)).values("id")[:1])


def _default_image_row(**owner):
    row = JSONObject(
        id="id", name="name", key="key", added="added", rank="rank", featured="featured", sizes="sizes"
    )
    return Subquery(_default_images(**owner).values(row=row)[:1], output_field=JSONField())


def thing_default_image_row(outer: str = "pk"):
    """Correlated subquery: the Thing's default live image as one JSON object, computed from its rows.
    The reference the pointers are checked against (thing_image_annotations)."""
    return _default_image_row(thing_id=OuterRef(outer))


def copy_default_image_row(outer: str = "pk"):
    """The same for a copy (make): its featured live image, else the first by rank (its thumbnail), so a
    page of makes gets its images in the same statement (never N+1)."""
    return _default_image_row(copy_id=OuterRef(outer))


def thing_first_file_thumbnail_key(outer: str = "pk"):
    """Correlated subquery: the render of the Thing's first live file that has one (None when none),
    what Thing.file_thumbnail_key holds ("" for none): the thumbnail when it has no default image."""
    return Subquery(_rendered_files(outer).values("thumbnail_key")[:1])


def thing_image_annotations() -> dict:
    """A Thing's pictures computed from its images and files as correlated subqueries: what the Thing
    queries read before the pointers (issue 17), kept as the reference the pointers must agree with
    (files.services.thing_pictures_repair and the tests compare them).

    Built once per process: annotate() resolves a copy of each expression, never the expression
    itself, so the same ones serve every queryset."""
    return dict(_thing_image_annotations())


@cache
def _thing_image_annotations() -> dict:
    return {
        "default_image_row": thing_default_image_row(),
        "first_file_thumbnail_key": thing_first_file_thumbnail_key(),
    }


# A Thing's pointers beside what its rows say (thing_image_annotations).
_POINTERS_AND_RULES = (
    "pk", "default_image_id", "default_image_row", "file_thumbnail_key", "first_file_thumbnail_key"
)


def thing_pictures_stale(*, after: int, batch: int) -> tuple[list[int], int | None]:
    """Of the next `batch` Things by id after `after`, those whose pointers disagree with their rows
    (thing_image_annotations: the rules computed afresh), and the last id read (None: none was left)."""
    rows = list(
        Thing.objects.filter(pk__gt=after)
        .order_by("pk")
        .annotate(**thing_image_annotations())
        .values_list(*_POINTERS_AND_RULES)[:batch]
    )
    stale = [
        pk for pk, image_id, row, file_key, first_key in rows
        if _row_id(row) != image_id or file_key != (first_key or "")
    ]
    return stale, (rows[-1][0] if rows else None)


def _row_id(row) -> int | None:
    # PostgreSQL hands the JSON row back decoded; SQLite (the quick start) may hand back its text.
    row = json.loads(row) if isinstance(row, str) else row
    return row["id"] if row else None


# --- files --------------------------------------------------------------------------------------------


def _files() -> QuerySet:
    # The render image joined: FileSerializer's `default_image` (links.file_default_image).
    return ThingFile.objects.select_related("render_image")


def thing_file_list(*, thing, viewer) -> QuerySet:
    files = _files().filter(thing=thing).order_by("added", "id")
    if not _sees_everything(viewer, thing):
        files = files.filter(status=LIVE)
    return files


def thing_file_get(*, thing, file_id, viewer) -> ThingFile:
    """One file of this Thing (404 when it is another Thing's, or not visible)."""
    file = thing_file_list(thing=thing, viewer=viewer).filter(pk=id_or_404(file_id)).first()
    if file is None:
        raise NotFound()
    return file


def file_get_for_viewer(file_id, *, viewer) -> ThingFile:
    """spec §4.3 /files/{id}: the Thing's matrix (401/403/404), then 404 for a file the caller may not
    see. `file.thing` is the Thing as thing_get_for_viewer loaded it."""
    file = _files().filter(pk=id_or_404(file_id)).first()
    if file is None:
        raise NotFound()
    thing = thing_selectors.thing_get_for_viewer(file.thing_id, viewer=viewer, detail=False)
    if file.status != LIVE and not _sees_everything(viewer, thing):
        raise NotFound()
    file.thing = thing
    return file


# --- images ------------------------------------------------------------------------------------------


def file_get_direct(file_id: int) -> ThingFile | None:
    """The file a direct URL names (links.file_direct_url), or None: gone, or its Thing deleted or hidden
    by a moderator. The URL itself is the capability (the caller is not asked who they are)."""
    return ThingFile.objects.filter(pk=file_id, thing__is_hidden=False).first()


def thing_image_list(*, thing, viewer) -> QuerySet:
    images = Image.objects.filter(thing=thing).order_by(*image_order())
    if not _sees_everything(viewer, thing):
        images = images.filter(status=LIVE)
    return images


def thing_image_get(*, thing, image_id, viewer) -> Image:
    image = thing_image_list(thing=thing, viewer=viewer).filter(pk=id_or_404(image_id)).first()
    if image is None:
        raise NotFound()
    return image


# --- downloads ---------------------------------------------------------------------------------------


def thing_list_downloaded_by(*, user, viewer) -> QuerySet:
    """spec §4.1 /users/{username}/downloads: the Things `user` downloaded, each once, the most recently
    downloaded first, only those `viewer` may see. Only the user themself may read it (403 otherwise):
    a download history says what someone prints, which the spec never makes public."""
    if viewer is None or not viewer.is_authenticated or viewer.pk != user.pk:
        raise PermissionDenied()
    downloads = Download.objects.filter(user_id=user.pk, thing_id=OuterRef("pk"))
    last = downloads.order_by("-created").values("created")[:1]
    return (
        thing_selectors.thing_list_visible(viewer=viewer)
        .filter(Exists(downloads))
        .annotate(last_downloaded=Subquery(last))
        .order_by("-last_downloaded", "-id")
    )


def processing_error_of(record: ThingFile | Image, *, now=None) -> str:
    """What a file's or image's `processing_error` says (issue 23): why its processing failed, or, while it
    is `processing` past settings.PROCESSING_STALLED_SECONDS (its worker or broker is gone), that it has
    not finished and can be tried again; else "". Never silent: whatever the beat and the worker do."""
    if record.processing_error:
        return record.processing_error
    after = settings.PROCESSING_STALLED_SECONDS
    if rules.processing_is_stalled(status=record.status, since=record.modified, now=now or timezone.now(),
                                   after_seconds=after):
        return rules.processing_stalled_message(after_seconds=after)
    return ""


def processing_is_stalled(record: ThingFile | Image, *, now=None) -> bool:
    return rules.processing_is_stalled(status=record.status, since=record.modified, now=now or timezone.now(),
                                       after_seconds=settings.PROCESSING_STALLED_SECONDS)
