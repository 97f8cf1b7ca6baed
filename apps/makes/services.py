"""Every state change of copies (makes): create (at upload finalize), update, delete, images, likes,
moderation counters, and the release of a departing user's makes and likes.

Counters stay exact under concurrency:
- `Thing.make_count` is the number of the Thing's visible (not hidden) makes. Every change takes the
  Thing's row lock first, then the make's, so creating, deleting and re-counting never interleave.
- `Make.like_count` changes under the make's row lock with an F() update, as Thing likes do.
- `make_count` is written through apps.search's thing_counters_update: the Thing's search row (sorted
  and filtered by it) follows in the same statement.
"""
from django.db import transaction
from django.db.models import F

from apps.accounts.models import Event
from apps.accounts.services import event_record
from apps.core.exceptions import NotFound, RuleViolation
from apps.makes import rules
from apps.makes.models import Make, MakeLike
from apps.search.services import thing_counters_update
from apps.things.likes import counted_like_add, counted_like_remove, counted_likes_release_for_user
from apps.things.models import Thing
from apps.uploads.models import Image, Upload
from apps.uploads.services import object_delete_on_commit, upload_image_attach, upload_start
from apps.uploads.services_files import image_delete

_MAKE_LIKES = {"like_model": MakeLike, "target_model": Make, "field": "make"}


def _lock_thing(thing_id: int) -> bool:
    return bool(Thing.objects.select_for_update().filter(pk=thing_id).values_list("pk", flat=True))


def _lock_make(make_id: int) -> None:
    if not Make.objects.select_for_update().filter(pk=make_id).values_list("pk", flat=True):
        raise NotFound()  # deleted since the view read it


def _image_keys(images) -> list[str]:
    """The original and every rendered size of each image: what must leave the store with it."""
    keys = []
    for key, sizes in images.values_list("key", "sizes"):
        keys.append(key)
        keys.extend(v.get("key") for v in sizes or () if isinstance(v, dict) and v.get("key"))
    return keys


def _delete_locked(make_ids: list[int]) -> None:
    """Delete makes (their images and likes cascade) and, on commit, their store objects."""
    keys = _image_keys(Image.objects.filter(copy_id__in=make_ids))
    Make.objects.filter(pk__in=make_ids).delete()
    for key in dict.fromkeys(keys):
        object_delete_on_commit(key)


# --- create ------------------------------------------------------------------------------------------


def _create_locked(*, thing: Thing, creator, description: str = "") -> Make:
    make = Make.objects.create(thing=thing, creator=creator, description=description)
    thing_counters_update(Thing.objects.filter(pk=thing.pk), make_count=F("make_count") + 1)
    event_record(
        recipient=thing.creator, actor=creator, kind=Event.Kind.MAKE, target_type="make", target_id=make.pk
    )
    return make


def make_create(*, thing: Thing, creator, description: str = "") -> Make:
    """A make of a published Thing (the seed data and tests; the API creates makes at upload finalize).

    Side effects: the Thing's make_count goes up; a `make` event for the Thing's creator.
    """
    with transaction.atomic():
        if not _lock_thing(thing.pk):
            raise NotFound()
        reasons = rules.make_create_blockers(thing)
        if reasons:
            raise RuleViolation(reasons[0])
        return _create_locked(thing=thing, creator=creator, description=description)


def make_upload_start(*, thing: Thing, owner, filename: str) -> Upload:
    """spec §4.2 POST /things/{id}/copies: the upload of a new make's image. The make itself is created
    when the upload is finalized (make_new_finalize), so an abandoned upload leaves no empty make."""
    reasons = rules.make_create_blockers(thing)
    if reasons:
        raise RuleViolation(reasons[0])
    return upload_start(owner=owner, kind=Upload.Kind.COPY_NEW, target_id=thing.pk, filename=filename)


def make_image_upload_start(*, make: Make, owner, filename: str) -> Upload:
    """spec §4.4 POST /copies/{id}/images: the upload of another image of an existing make."""
    return upload_start(owner=owner, kind=Upload.Kind.COPY_IMAGE, target_id=make.pk, filename=filename)


def make_new_finalize(upload: Upload, *, size: int) -> None:
    """Upload finalizer (apps.uploads) of `copy_new`: the make is created with the upload as its image.

    Runs under the Upload's lock, so one upload makes one make however often finalize is called.
    LookupError (the upload fails) when the Thing was deleted, hidden or unpublished meanwhile.
    Side effects: as make_create, plus the image's processing on commit.
    """
    thing = Thing.objects.select_for_update().filter(pk=upload.target_id).first()
    if thing is None or thing.is_hidden or rules.make_create_blockers(thing):
        raise LookupError(upload.target_id)
    make = _create_locked(thing=thing, creator=upload.owner)
    upload_image_attach(upload, size=size, copy_id=make.pk)


def make_image_finalize(upload: Upload, *, size: int) -> None:
    """Upload finalizer (apps.uploads) of `copy_image`: another image of the make. The make's row lock
    holds off a concurrent delete; LookupError when it is already gone."""
    if not Make.objects.select_for_update().filter(pk=upload.target_id).values_list("pk", flat=True):
        raise LookupError(upload.target_id)
    upload_image_attach(upload, size=size, copy_id=upload.target_id)


# --- update, delete ----------------------------------------------------------------------------------


def make_update(*, make: Make, data: dict) -> None:
    """spec §4.4 PATCH /copies/{id}/: the description (creator only, checked by the selector)."""
    if "description" not in data:
        return
    with transaction.atomic():
        row = Make.objects.select_for_update().filter(pk=make.pk).first()
        if row is None:
            raise NotFound()  # deleted since the view read it
        if row.description != data["description"]:
            row.description = data["description"]
            row.save(update_fields=["description", "modified"])


def make_delete(*, make: Make) -> None:
    """Delete a make irreversibly, with its images (rows now, store objects on commit) and likes; the
    Thing's make_count follows when the make was visible. Deleting it twice is a no-op."""
    with transaction.atomic():
        _lock_thing(make.thing_id)
        row = Make.objects.select_for_update().filter(pk=make.pk).values("is_hidden").first()
        if row is None:
            return
        _delete_locked([make.pk])
        if not row["is_hidden"]:
            thing_counters_update(Thing.objects.filter(pk=make.thing_id, make_count__gt=0),
                                  make_count=F("make_count") - 1)


def make_hidden_changed(*, make: Make) -> None:
    """After a moderator hid or unhid a make (admin on_hidden/on_unhidden): re-count the Thing's visible
    makes under its lock. A count rather than ±1: the hide committed in its own transaction, so this
    stays exact whatever ran in between."""
    with transaction.atomic():
        if not _lock_thing(make.thing_id):
            return
        count = Make.objects.filter(thing_id=make.thing_id, is_hidden=False).count()
        thing_counters_update(Thing.objects.filter(pk=make.thing_id), make_count=count)


# --- images ------------------------------------------------------------------------------------------


def make_image_update(
    *, make: Make, image: Image, rank: int | None = None, featured: bool | None = None
) -> None:
    """spec §4.4 PATCH /copies/{id}/images/{image_id}: `rank` orders the images; `featured=true` makes
    this image the make's thumbnail, so at most one image of a make is featured."""
    with transaction.atomic():
        # Two images featured at once must not both win: featuring serialises on the make's row.
        _lock_make(make.pk)
        fields = {}
        if rank is not None:
            fields["rank"] = rank
        if featured is not None:
            fields["featured"] = featured
            if featured:
                others = Image.objects.filter(copy_id=make.pk, featured=True).exclude(pk=image.pk)
                others.update(featured=False)
        if fields:
            Image.objects.filter(pk=image.pk, copy_id=make.pk).update(**fields)


def make_image_delete(*, image: Image) -> None:
    """spec §4.4 DELETE /copies/{id}/images/{image_id}: the row now, the original and every rendered
    size from the store on commit (apps.uploads, as for a Thing's images)."""
    image_delete(image=image)


# --- likes -------------------------------------------------------------------------------------------


def make_like(*, user, make: Make) -> None:
    """Like a make (spec §3 Like rows); liking again is a no-op. Side effects: a `like` event for the
    make's creator, once. The make's row lock keeps like_count exact under concurrent likes."""
    reasons = rules.make_like_blockers(user, make)
    if reasons:
        raise RuleViolation(reasons[0])
    counted_like_add(**_MAKE_LIKES, target=make, user=user, event_target_type="make")


def make_unlike(*, user, make: Make) -> None:
    """Unlike a make (spec §3); not liking it already is fine. Same lock as make_like. Side effects: the
    `like` event goes (a like taken back is no longer news)."""
    reasons = rules.make_like_blockers(user, make)
    if reasons:
        raise RuleViolation(reasons[0])
    counted_like_remove(**_MAKE_LIKES, target=make, user=user, event_target_type="make")


# --- account deletion --------------------------------------------------------------------------------


def makes_release_for_user(*, user) -> None:
    """Before a user is deleted (accounts.services.user_delete): delete their makes, lowering each
    Thing's make_count, and remove their likes of makes, lowering each make's like_count. The cascade
    alone would leave both counters too high.

    Locks Things, then makes, each in id order: the order every other make service takes them.
    """
    with transaction.atomic():
        own = list(Make.objects.filter(creator=user).values_list("pk", "thing_id", "is_hidden"))
        if own:
            thing_ids = sorted({thing_id for _, thing_id, _ in own})
            list(Thing.objects.select_for_update().filter(pk__in=thing_ids).order_by("pk").values_list("pk"))
            visible = {}
            for _, thing_id, is_hidden in own:
                if not is_hidden:
                    visible[thing_id] = visible.get(thing_id, 0) + 1
            _delete_locked([pk for pk, _, _ in own])
            for thing_id, n in visible.items():
                thing_counters_update(Thing.objects.filter(pk=thing_id, make_count__gte=n),
                                      make_count=F("make_count") - n)
        counted_likes_release_for_user(**_MAKE_LIKES, user=user)
