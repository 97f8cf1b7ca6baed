"""Writes on existing files and images: delete, image rank/featured, downloads (spec §4.2, §4.3).

The upload flow (creating files and images) is services.py; this module changes what it created.
Store objects are deleted only once the row's deletion committed: a rolled-back delete must not leave
a row pointing at nothing, and an orphaned object is harmless (and swept by the store's lifecycle).
"""
import logging

from django.db import transaction
from django.db.models import F

from apps.search.services import thing_counters_update
from apps.things.models import Thing
from apps.uploads import store
from apps.uploads.models import Download, Image, ThingFile

log = logging.getLogger(__name__)


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
    that image's objects (DECISIONS.md: Thing images); the Thing's file_count follows. Side effects:
    deletes the store objects on commit. Deleting it twice is a no-op."""
    with transaction.atomic():
        render = Image.objects.filter(source_file_id=file.pk).values_list("key", "sizes").first()
        deleted, _ = ThingFile.objects.filter(pk=file.pk).delete()  # the render image cascades
        if not deleted:
            return
        # The package's signature covers the live files, so the next package-url rebuilds by itself.
        Thing.objects.filter(pk=file.thing_id, file_count__gt=0).update(file_count=F("file_count") - 1)
        render_keys = [render[0], *_size_keys(render[1])] if render else []
        _delete_objects_on_commit([file.key, file.thumbnail_key, file.threejs_key, *render_keys])


def _size_keys(sizes) -> list[str]:
    return [v.get("key") for v in sizes or () if isinstance(v, dict)]


def image_update(*, image: Image, rank: int | None = None, featured: bool | None = None) -> None:
    """spec §4.2 PATCH image: `rank` orders the images; `featured=true` makes this the Thing's default
    image, so at most one image of a Thing is featured (the others are unfeatured)."""
    with transaction.atomic():
        # Two images featured at once must not both win: featuring serialises on the Thing's row.
        Thing.objects.select_for_update().filter(pk=image.thing_id).values_list("pk").first()
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


def image_delete(*, image: Image) -> None:
    """Delete an image and its objects (original and every rendered size). Side effects: deletes the
    store objects on commit.

    A file's render image may be deleted too: it stays gone until the file is processed again. Its file
    keeps its own objects (a render made before renders were images has the file's thumbnail as its
    original)."""
    with transaction.atomic():
        owned_by_file = set()
        if image.source_file_id is not None:
            owned_by_file = set(
                ThingFile.objects.filter(pk=image.source_file_id).values_list("thumbnail_key", flat=True)
            )
        deleted, _ = Image.objects.filter(pk=image.pk).delete()
        if deleted:
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
        # With the Thing's search row (sort=popular counts downloads), in the same statement.
        thing_counters_update(Thing.objects.filter(pk=file.thing_id), download_count=F("download_count") + 1)
    return store.download_url(file.key, filename=file.name)



def image_reorder(*, thing, image_ids: list[int]) -> None:
    """Give the Thing's images the order of `image_ids` (ranks 0, 1, 2 …); images of `image_ids` that are
    not this Thing's are ignored, and those missing from it keep their rank (the site sends them all)."""
    from django.db.models import Case, IntegerField, Value, When

    with transaction.atomic():
        # Serialised on the Thing's row, as featuring is: two reorders never interleave.
        Thing.objects.select_for_update().filter(pk=thing.pk).values_list("pk").first()
        ranks = {image_id: rank for rank, image_id in enumerate(dict.fromkeys(image_ids))}
        if not ranks:
            return
        Image.objects.filter(thing_id=thing.pk, pk__in=ranks).update(
            rank=Case(*[When(pk=pk, then=Value(rank)) for pk, rank in ranks.items()], output_field=IntegerField())
        )
