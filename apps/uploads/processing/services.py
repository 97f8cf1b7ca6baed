"""Processing of finalized uploads: Thing files (STL geometry, thumbnail, three.js) and images (sizes).

Both services follow the same shape: a row still `processing` is the claim (anything else: no-op, so
a repeated or redelivered task does nothing); the original is streamed from the store to a temporary
file; the work runs on disk with bounded memory; derivatives are uploaded under keys derived from the
original's key (so a second concurrent run overwrites the same objects with the same bytes); then one
conditional UPDATE (`status=processing` → live/failed) records the outcome. No network call runs inside
a database transaction. The original object is never modified or deleted here.

Content that cannot be processed (corrupt, hostile, wrong format) marks the row failed with a clear
`processing_error`. Transient store failures raise `store.StoreError`, which the tasks retry with
backoff; a missing original fails the row.
"""
import logging
import tempfile
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from botocore.exceptions import ClientError
from django.conf import settings
from django.db import transaction
from django.db.models import Subquery
from django.utils import timezone

from apps.things.changes import thing_changed_emit
from apps.things.events import thing_event
from apps.things.models import Thing
from apps.uploads import links, store
from apps.uploads.files.services import thing_pictures_refresh
from apps.uploads.models import Image, ProcessingStatus, ThingFile
from apps.uploads.processing import images, obj, render, stl, threejs, threemf

log = logging.getLogger(__name__)

STL_SUFFIX = ".stl"
# The model formats processed (measured, rendered, previewed); other files go live as they are.
MODEL_FORMATS = {".stl": "stl", ".3mf": "3mf", ".obj": "obj"}
_MISSING_CODES = {"404", "NoSuchKey", "NotFound"}


class OriginalMissing(Exception):
    pass


class ProcessingOverTime(Exception):
    """The run went past its deadline (the task's soft time limit) before it could go live. The limit's
    own exception can be lost on the way: a library that retries a failed call (botocore wraps whatever
    interrupted a request and sends it again) swallows it, and the run then finishes. The outcome must not
    depend on where the signal landed, so the row is checked against the clock before it goes live."""


def _within(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise ProcessingOverTime()


# --- Store adapter: the only calls into apps.uploads.store ------------------------------------------


@contextmanager
def _downloaded(key: str, *, suffix: str = ""):
    """The object at `key` streamed to a temporary file (never into memory); yields its path."""
    try:
        tmp = store.download_to_tempfile(key, suffix=suffix)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _MISSING_CODES:
            raise OriginalMissing(key) from None
        raise
    with tmp:
        yield Path(tmp.name)


# Parts of a derivative in flight at once: each holds 8 MB in the worker (s3transfer's default of 10
# made the three.js upload of a 50 MB STL the processing's peak; make bench, issue 17).
UPLOAD_CONCURRENCY = 2


def _upload(key: str, path: Path, content_type: str) -> None:
    with open(path, "rb") as fh:
        # upload_file, not put_file: from a named file the transfer reads parts lazily instead of
        # buffering up to ten 8 MB parts in memory (measured: +27 MB instead of +112 MB for 140 MB).
        store.upload_file(key, fh, content_type, max_concurrency=UPLOAD_CONCURRENCY)


@contextmanager
def _workdir(prefix: str):
    with tempfile.TemporaryDirectory(prefix=prefix, dir=getattr(settings, "FILE_UPLOAD_TEMP_DIR", None)) as d:
        yield Path(d)


# --- Thing files --------------------------------------------------------------------------------------


def file_is_stl(*, name: str, key: str) -> bool:
    return file_model_format(name=name, key=key) == "stl"


def file_model_format(*, name: str, key: str) -> str | None:
    """"stl", "3mf" or "obj" by the file's name (or its key's), None for files not processed as models."""
    for candidate in (name, key):
        fmt = MODEL_FORMATS.get(Path(candidate.lower()).suffix)
        if fmt:
            return fmt
    return None


def _model_open(fmt: str, original: Path, work: Path) -> tuple[stl.Mesh, dict]:
    """The model as a mesh (a binary STL on disk) and what its geometry adds to stl_measure's."""
    max_triangles = getattr(settings, "UPLOADS_STL_MAX_TRIANGLES", stl.DEFAULT_MAX_TRIANGLES)
    max_vertices = getattr(settings, "UPLOADS_MODEL_MAX_VERTICES", threemf.DEFAULT_MAX_VERTICES)
    if fmt == "3mf":
        model = threemf.threemf_open(original, workdir=work, max_triangles=max_triangles,
                                     max_vertices=max_vertices)
        extra: dict = {"objects": model.objects, "settings": model.settings}
        if model.plates:
            extra["plates"] = model.plates
        return model.mesh, extra
    if fmt == "obj":
        mesh, objects = obj.obj_open(original, workdir=work, max_triangles=max_triangles,
                                     max_vertices=max_vertices)
        return mesh, {"objects": objects}
    return stl.stl_open(original, workdir=work, max_triangles=max_triangles), {}


def file_thumbnail_key(key: str) -> str:
    return f"{key}.thumb.png"


def file_threejs_key(key: str) -> str:
    return f"{key}.three.json"


def file_render_key(key: str) -> str:
    """The original of the file's render image (its sizes are stored beside it, images.size_key)."""
    return f"{key}.render.png"


def _thing_lock_of(model, pk: int) -> int | None:
    """Hold the row of the Thing this file or image belongs to until commit, before the row itself
    changes (the order of the image and file services: the Thing first); its id, or None for a copy's
    image or a row gone."""
    of_row = model.objects.filter(pk=pk).values("thing_id")[:1]
    locked = Thing.objects.select_for_update(no_key=True).filter(pk=Subquery(of_row))
    return locked.values_list("pk", flat=True).first()


def _file_finish(file_id: int, **fields) -> bool:
    """Record a file's outcome from `processing` (the claim), under its Thing's lock. A file that goes
    live may be its Thing's thumbnail: the caller refreshes the Thing's pictures once everything the
    outcome adds (the render image) is written."""
    with transaction.atomic(savepoint=False):
        thing_id = _thing_lock_of(ThingFile, file_id)
        updated = ThingFile.objects.filter(pk=file_id, status=ProcessingStatus.PROCESSING).update(**fields)
        if updated:
            # The Thing's cached body shows its files' and images' states (apps.things.bodycache).
            thing_changed_emit(thing_ids=[thing_id])
    return updated == 1


def _file_processed_event(file_id: int, *, thing_id: int, name: str, status: str, error: str = "") -> None:
    """thing_file_processed (apps/webhooks/catalog.py), in the transaction that recorded the outcome."""
    thing = Thing.objects.filter(pk=thing_id).select_related("creator").first()
    if thing is None:
        return
    file = {"id": file_id, "name": name, "url": links.file_api_url(file_id), "status": status, "error": error}
    thing_event(thing, "thing_file_processed", file=file)


def file_process(*, file_id: int, deadline: float | None = None) -> str:
    """Measure a model (STL, 3MF, OBJ), render its thumbnail, its render image (one of its Thing's images)
    and its three.js JSON; other files go live as they are.

    Returns the outcome ("live", "failed", or "skipped" when the row is gone or no longer processing).
    `deadline` (time.monotonic()): a model still being processed then raises ProcessingOverTime instead
    of going live.
    """
    file = ThingFile.objects.filter(pk=file_id).only("id", "thing_id", "name", "key", "status").first()
    if file is None or file.status != ProcessingStatus.PROCESSING:
        return "skipped"
    fmt = file_model_format(name=file.name, key=file.key)
    if fmt is None:
        with transaction.atomic():
            finished = _file_finish(file_id, status=ProcessingStatus.LIVE, geometry=None)
            if finished:
                thing_pictures_refresh(thing_ids=[file.thing_id], locked=True)
                _file_processed_event(file_id, thing_id=file.thing_id, name=file.name, status="live")
        return "live" if finished else "skipped"

    thumbnail_key, threejs_key = file_thumbnail_key(file.key), file_threejs_key(file.key)
    render_key = file_render_key(file.key)
    sizes = []
    try:
        with _workdir(f"thingyard-{fmt}-") as work, _downloaded(file.key, suffix=f".{fmt}") as original:
            mesh, extra = _model_open(fmt, original, work)
            meta = {**stl.stl_measure(mesh), **extra}
            render.render_thumbnail(mesh, work / "render.png", size=render.RENDER_SIZE)
            threejs.threejs_write(mesh, work / "three.json")
            del mesh  # unmap before the directory goes
            render.render_downscaled(work / "render.png", work / "thumb.png")
            (work / "sizes").mkdir()
            width, height, renditions = images.image_render(work / "render.png", workdir=work / "sizes")
            render_size = (work / "render.png").stat().st_size
            _upload(thumbnail_key, work / "thumb.png", "image/png")
            _upload(threejs_key, work / "three.json", "application/json")
            _upload(render_key, work / "render.png", "image/png")
            for r in renditions:
                key = images.size_key(render_key, r.type, r.size)
                _upload(key, r.path, "image/jpeg")
                sizes.append({"type": r.type, "size": r.size, "key": key, "width": r.width, "height": r.height})
    except OriginalMissing:
        return _file_fail(file_id, "The uploaded file is missing from storage.")
    except stl.StlError as exc:
        return _file_fail(file_id, str(exc))
    except MemoryError:
        return _file_fail(file_id, "The model is too large to process.")

    _within(deadline)
    with transaction.atomic():
        finished = _file_finish(file_id, status=ProcessingStatus.LIVE, geometry=meta, processing_error="",
                                thumbnail_key=thumbnail_key, threejs_key=threejs_key)
        if finished:
            # The file row is locked by the UPDATE above until commit: a concurrent delete waits, so the
            # render cannot outlive its file.
            _render_image_save(file, key=render_key, size=render_size, width=width, height=height, sizes=sizes)
            # Its render and the render image: the Thing's thumbnail, or default image, may now be them.
            thing_pictures_refresh(thing_ids=[file.thing_id], locked=True)
            _file_processed_event(file_id, thing_id=file.thing_id, name=file.name, status="live")
    if finished:
        return "live"
    if not ThingFile.objects.filter(pk=file_id).exists():
        # Deleted while we worked: nobody will ever point at these objects.
        for key in (thumbnail_key, threejs_key, render_key, *(entry["key"] for entry in sizes)):
            store.delete(key)
    return "skipped"


def _render_image_save(file: ThingFile, *, key: str, size: int, width: int, height: int, sizes: list) -> Image:
    """The file's render as an image of its Thing (docs/decisions.md: Thing images): live at once, after the
    uploaded images. Processing the file again replaces it (the same keys, so the same objects)."""
    image, _ = Image.objects.update_or_create(
        source_file_id=file.pk,
        defaults={
            "thing_id": file.thing_id,
            "name": f"{Path(file.name).stem}.png",
            "key": key,
            "size": size,
            "width": width,
            "height": height,
            "sizes": sizes,
            "status": ProcessingStatus.LIVE,
            "processing_error": "",
        },
    )
    thing_changed_emit(thing_ids=[file.thing_id])
    return image


def _file_fail(file_id: int, reason: str) -> str:
    log.info("file %s failed processing: %s", file_id, reason)
    with transaction.atomic():
        # A file leaving `processing` for `failed` was never a picture of its Thing, nor is it now.
        failed = _file_finish(file_id, status=ProcessingStatus.FAILED, processing_error=reason)
        if failed:
            row = ThingFile.objects.filter(pk=file_id).values("thing_id", "name").first()
            if row is not None:
                _file_processed_event(file_id, thing_id=row["thing_id"], name=row["name"], status="failed",
                                      error=reason)
    return "failed" if failed else "skipped"


# --- Images -------------------------------------------------------------------------------------------


def _image_finish(image_id: int, **fields) -> bool:
    """Record an image's outcome from `processing` (the claim), under its Thing's lock. An image that
    goes live may be its Thing's default image: the Thing's pictures follow in the same transaction (a
    failed one never was, nor is)."""
    with transaction.atomic(savepoint=False):
        thing_id = _thing_lock_of(Image, image_id)
        updated = Image.objects.filter(pk=image_id, status=ProcessingStatus.PROCESSING).update(**fields)
        if updated and thing_id is not None:
            if fields.get("status") == ProcessingStatus.LIVE:
                thing_pictures_refresh(thing_ids=[thing_id], locked=True)
            thing_changed_emit(thing_ids=[thing_id])
    return updated == 1


def image_process(*, image_id: int, deadline: float | None = None) -> str:
    """Validate an uploaded image and render its sizes (processing/images.py lists them).

    Returns the outcome ("live", "failed", or "skipped" when the row is gone or no longer processing).
    `deadline`: as file_process's.
    """
    image = Image.objects.filter(pk=image_id).only("id", "key", "status").first()
    if image is None or image.status != ProcessingStatus.PROCESSING:
        return "skipped"
    max_pixels = getattr(settings, "UPLOADS_IMAGE_MAX_PIXELS", images.DEFAULT_MAX_PIXELS)
    sizes = []
    try:
        with _workdir("thingyard-image-") as work, _downloaded(image.key) as original:
            width, height, renditions = images.image_render(original, workdir=work, max_pixels=max_pixels)
            for r in renditions:
                key = images.size_key(image.key, r.type, r.size)
                _upload(key, r.path, "image/jpeg")
                sizes.append(
                    {"type": r.type, "size": r.size, "key": key, "width": r.width, "height": r.height}
                )
    except OriginalMissing:
        return _image_fail(image_id, "The uploaded image is missing from storage.")
    except images.ImageProcessingError as exc:
        return _image_fail(image_id, str(exc))
    except MemoryError:
        return _image_fail(image_id, "The image is too large to process.")

    _within(deadline)
    if _image_finish(image_id, status=ProcessingStatus.LIVE, width=width, height=height, sizes=sizes,
                     processing_error=""):
        return "live"
    if not Image.objects.filter(pk=image_id).exists():
        for entry in sizes:
            store.delete(entry["key"])
    return "skipped"


def _image_fail(image_id: int, reason: str) -> str:
    log.info("image %s failed processing: %s", image_id, reason)
    failed = _image_finish(image_id, status=ProcessingStatus.FAILED, processing_error=reason)
    return "failed" if failed else "skipped"


def processing_time_out(*, kind: str, record_id: int, seconds: float | None) -> str:
    """A processing run that hit its time limit (finding 8): the file or image fails as too complex, so
    it never stays `processing` (nor is processed again by the sweep). Returns the outcome."""
    limit = f" ({seconds:g} s)" if seconds else ""
    if kind == "image_process":
        return _image_fail(record_id, f"The image is too complex to process within the time limit{limit}.")
    return _file_fail(record_id, f"The model is too complex to process within the time limit{limit}.")


# Longer than any processing run measured (a 50 MB STL takes ~10 s; make bench), so a row this old in
# `processing` lost its worker or ran out of retries.
STUCK_AFTER = timedelta(minutes=30)


def processing_requeue_stuck(*, now=None) -> dict[str, list[int]]:
    """Files and images left in `processing` past STUCK_AFTER, to be processed again.

    Touches each row's `modified` (a conditional UPDATE on the old value, so two sweeps never both
    claim one row) and returns the claimed ids; the task enqueues them. Re-processing is safe: the
    services claim the row again and their outcome UPDATE only applies from `processing`.
    """
    now = now or timezone.now()
    claimed: dict[str, list[int]] = {"files": [], "images": []}
    for name, model in (("files", ThingFile), ("images", Image)):
        stuck = model.objects.filter(status=ProcessingStatus.PROCESSING, modified__lt=now - STUCK_AFTER)
        for pk, modified in stuck.values_list("pk", "modified")[:500]:
            if model.objects.filter(pk=pk, modified=modified).update(modified=now):
                claimed[name].append(pk)
    return claimed
