"""Writes of a Thing's files and images (spec §4.2, §4.3): what an upload becomes (the finalizers of
`thing_file` and `thing_image`, and an image of a copy for apps.makes), then deletes, image rank and
featured flag, downloads. The Thing's file and download counts move through apps.things.counters.

Store objects are deleted only once the row's deletion committed: a rolled-back delete must not leave
a row pointing at nothing, and an orphaned object is harmless (and swept by the store's lifecycle).
"""
import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, IntegerField, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.core.broker.enqueue import task_enqueue_on_commit
from apps.things.changes import thing_changed_emit
from apps.things.counters import thing_count_add, thing_lock, things_lock
from apps.things.models import Thing
from apps.uploads import rules, store
from apps.uploads.files import selectors
from apps.uploads.flow.services import upload_start
from apps.uploads.models import Download, Image, ProcessingStatus, ThingFile, Upload

log = logging.getLogger(__name__)


# --- a Thing's pictures: its pointers to its default image and first rendered file ---------------------


def thing_pictures_refresh(*, thing_ids, locked: bool = False) -> None:
    """Point these Things at their pictures again (Thing.default_image, Thing.file_thumbnail_key:
    docs/decisions.md "A Thing's pictures as pointers") after a change to their images or files, in the
    caller's transaction: one UPDATE whose subqueries apply the rules (files.selectors:
    thing_default_image_id, thing_first_file_thumbnail_key).

    The Things' rows are locked first (`locked`: the caller holds them already), so the UPDATE, a later
    statement, sees every change a concurrent transaction committed before it: two changes to one Thing's
    images never leave a pointer computed without the other. The caller drops the cached bodies
    (apps.things.changes.thing_changed_emit), as for any change to a Thing's images."""
    ids = sorted({int(pk) for pk in thing_ids if pk is not None})
    if not ids:
        return
    with transaction.atomic(savepoint=False):
        if not locked:
            things_lock(ids, no_key=True)
        Thing.objects.filter(pk__in=ids).update(
            default_image=selectors.thing_default_image_id(),
            file_thumbnail_key=Coalesce(selectors.thing_first_file_thumbnail_key(), Value("")),
        )


def thing_pictures_repair(*, batch: int = 1000) -> list[int]:
    """Re-point every Thing whose pointers disagree with its rows (files.selectors.thing_pictures_stale):
    for a deploy during which code that did not keep them changed images, or a write made outside these
    services. Walks the Things by id, `batch` at a time, each re-pointing its own transaction; returns
    the ids it re-pointed."""
    repaired: list[int] = []
    last: int | None = 0
    while last is not None:
        stale, last = selectors.thing_pictures_stale(after=last, batch=batch)
        if stale:
            with transaction.atomic():
                thing_pictures_refresh(thing_ids=stale)
                thing_changed_emit(thing_ids=stale)
            repaired.extend(stale)
    return repaired


# --- what uploads become ------------------------------------------------------------------------------


def thing_upload_start(*, owner, thing, filename: str) -> Upload:
    """spec §4.2 POST /things/{id}/files: an image name starts a Thing image, any other a Thing file."""
    kind = rules.thing_upload_kind(rules.filename_clean(filename))
    return upload_start(owner=owner, kind=kind, target_id=thing.pk, filename=filename)


def thing_file_finalize(upload: Upload, *, size: int) -> None:
    """Upload finalizer of `thing_file`: a file of the Thing, counted in its file_count. LookupError when
    the Thing is gone. Side effects: the file's processing is enqueued on commit."""
    # The counter UPDATE also locks the Thing until commit: a concurrent delete waits, and a Thing
    # already deleted updates no row.
    if not thing_count_add(upload.target_id, "file_count", 1):
        raise LookupError(upload.target_id)
    upload.file = ThingFile.objects.create(
        thing_id=upload.target_id,
        name=upload.filename,
        key=upload.key,
        size=size,
        content_type=upload.content_type,
    )
    _processing_enqueue("file_process", upload.file.pk)


def upload_image_attach(
    upload: Upload, *, size: int, thing_id: int | None = None, copy_id: int | None = None
) -> Image:
    """The upload becomes an image of a Thing or of a copy (make); for finalizers, under the Upload's lock.

    Side effects: the image's processing (its sizes) is enqueued on commit.
    """
    upload.image = Image.objects.create(
        thing_id=thing_id, copy_id=copy_id, name=upload.filename, key=upload.key, size=size
    )
    thing_changed_emit(thing_ids=[thing_id])
    _processing_enqueue("image_process", upload.image.pk)
    return upload.image


def thing_image_finalize(upload: Upload, *, size: int) -> None:
    """Upload finalizer of `thing_image`: an image of the Thing, its row held until commit. LookupError
    when the Thing is gone."""
    if not thing_lock(upload.target_id):
        raise LookupError(upload.target_id)
    upload_image_attach(upload, size=size, thing_id=upload.target_id)


def _processing_enqueue(task_name: str, record_id: int) -> None:
    # Imported here: processing imports the models and store of this app, never the other way round.
    from apps.uploads.processing import tasks as processing

    # Durable, in the finalize's transaction: with the broker down the pending-task row is redriven as
    # soon as it answers again (seconds); processing_requeue_stuck (STUCK_AFTER) stays the last net.
    task_enqueue_on_commit(getattr(processing, task_name), (record_id,), sweep="processing_requeue_stuck")


def processing_retry(*, record: ThingFile | Image) -> bool:
    """Queue a stalled file's or image's processing again: the "Try again" of issue 23.

    Claims the row with a conditional UPDATE of `modified` (two clicks queue it once, and the stall
    clock starts again), then enqueues it durably in the same transaction (a pending-task row: with the
    broker down the redrive publishes it once it answers). Processing claims the row itself, so a task
    that was only late and now runs twice does the work once. False when the row is not stalled
    (processed meanwhile, failed, or retried a moment ago)."""
    now = timezone.now()
    deadline = now - timedelta(seconds=settings.PROCESSING_STALLED_SECONDS)
    model = type(record)
    with transaction.atomic():
        claimed = model.objects.filter(
            pk=record.pk, status=ProcessingStatus.PROCESSING, modified__lt=deadline
        ).update(modified=now)
        if not claimed:
            return False
        _processing_enqueue("file_process" if model is ThingFile else "image_process", record.pk)
        if record.thing_id:
            thing_changed_emit(thing_ids=[record.thing_id])
    log.info("%s %s: processing queued again after it stalled", model.__name__, record.pk)
    return True


# --- changes to files and images ----------------------------------------------------------------------


def _delete_objects_on_commit(keys) -> None:
    keys = [key for key in dict.fromkeys(keys) if key]

    def delete():
        for key in keys:
            try:
                store.delete(key)
            except Exception as exc:  # the row is gone either way; a leftover object only costs storage
                log.warning("could not delete store object %s: %s", key, exc)

    transaction.on_commit(delete)


def file_delete(*, file: ThingFile) -> None:
    """Delete a Thing's file and its objects (original, thumbnail, three.js), and its render image with
    that image's objects (docs/decisions.md: Thing images); the Thing's file_count follows. Side effects:
    deletes the store objects on commit. Deleting it twice is a no-op."""
    with transaction.atomic():
        # The Thing's row first (the order of every change to its images): its pictures follow below.
        thing_lock(file.thing_id)
        render = Image.objects.filter(source_file_id=file.pk).values_list("key", "sizes").first()
        deleted, _ = ThingFile.objects.filter(pk=file.pk).delete()  # the render image cascades
        if not deleted:
            return
        # The package's signature covers the live files, so the next package-url rebuilds by itself.
        thing_count_add(file.thing_id, "file_count", -1)
        thing_pictures_refresh(thing_ids=[file.thing_id], locked=True)
        render_keys = [render[0], *_size_keys(render[1])] if render else []
        _delete_objects_on_commit([file.key, file.thumbnail_key, file.threejs_key, *render_keys])


def _size_keys(sizes) -> list[str | None]:
    return [v.get("key") for v in sizes or () if isinstance(v, dict)]


def image_update(*, image: Image, rank: int | None = None, featured: bool | None = None) -> None:
    """spec §4.2 PATCH image: `rank` orders the images; `featured=true` makes this the Thing's default
    image, so at most one image of a Thing is featured (the others are unfeatured)."""
    assert image.thing_id is not None  # a Thing's image (a copy's are apps.makes')
    with transaction.atomic():
        # Two images featured at once must not both win: featuring serialises on the Thing's row.
        thing_lock(image.thing_id)
        fields = {}
        if rank is not None:
            fields["rank"] = rank
        if featured is not None:
            fields["featured"] = featured
            if featured:
                Image.objects.filter(thing_id=image.thing_id, featured=True).exclude(pk=image.pk).update(
                    featured=False
                )
        if fields:
            Image.objects.filter(pk=image.pk).update(**fields)
            thing_pictures_refresh(thing_ids=[image.thing_id], locked=True)
            thing_changed_emit(thing_ids=[image.thing_id])


def image_delete(*, image: Image) -> None:
    """Delete an image and its objects (original and every rendered size). Side effects: deletes the
    store objects on commit.

    A file's render image may be deleted too: it stays gone until the file is processed again. Its file
    keeps its own objects (a render made before renders were images has the file's thumbnail as its
    original)."""
    with transaction.atomic():
        if image.thing_id is not None:
            thing_lock(image.thing_id)  # its pictures follow below (a copy's image is apps.makes')
        owned_by_file = set()
        if image.source_file_id is not None:
            owned_by_file = set(
                ThingFile.objects.filter(pk=image.source_file_id).values_list("thumbnail_key", flat=True)
            )
        deleted, _ = Image.objects.filter(pk=image.pk).delete()
        if deleted:
            thing_pictures_refresh(thing_ids=[image.thing_id], locked=True)
            thing_changed_emit(thing_ids=[image.thing_id])
            keys = [image.key, *_size_keys(image.sizes)]
            _delete_objects_on_commit([key for key in keys if key not in owned_by_file])


def file_download(*, file: ThingFile, user) -> str:
    """spec §4.3 download: count it on the file and the Thing, add it to a signed-in `user`'s history
    (the site's anonymous visitors have none), and return a short-lived store URL that saves the
    original under the file's name."""
    with transaction.atomic():
        if user is not None and user.is_authenticated:
            Download.objects.create(user=user, file_id=file.pk, thing_id=file.thing_id)
        ThingFile.objects.filter(pk=file.pk).update(download_count=F("download_count") + 1)
        thing_count_add(file.thing_id, "download_count", 1)
    return store.download_url(file.key, filename=file.name)


def image_reorder(*, thing, image_ids: list[int]) -> None:
    """Give the Thing's images the order of `image_ids` (ranks 0, 1, 2 …); images of `image_ids` that are
    not this Thing's are ignored, and those missing from it keep their rank (the site sends them all)."""
    with transaction.atomic():
        # Serialised on the Thing's row, as featuring is: two reorders never interleave.
        thing_lock(thing.pk)
        ranks = {image_id: rank for rank, image_id in enumerate(dict.fromkeys(image_ids))}
        if not ranks:
            return
        Image.objects.filter(thing_id=thing.pk, pk__in=ranks).update(
            rank=Case(*[When(pk=pk, then=Value(rank)) for pk, rank in ranks.items()], output_field=IntegerField())
        )
        thing_pictures_refresh(thing_ids=[thing.pk], locked=True)
        thing_changed_emit(thing_ids=[thing.pk])
