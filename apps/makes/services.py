"""Every state change of copies (makes): create (at upload finalize), update, delete, images, likes,
moderation counters, and the release of a departing user's makes and likes.

Counters stay exact under concurrency:
- `Thing.make_count` is the number of the Thing's visible (not hidden) makes. Every change takes the
  Thing's row lock first (apps.things.counters), then the make's, so creating, deleting and re-counting
  never interleave. The Thing's counters are written through apps.things.counters, so its search row
  (sorted and filtered by make_count) follows in the same statement.
- `Make.like_count` changes under the make's row lock (makes.counters), as Thing likes do.
"""
from django.db import transaction

from apps.activity.likes import LikeTarget, counted_like_add, counted_like_remove, counted_likes_release_for_user
from apps.activity.models import Event
from apps.activity.services import event_record
from apps.core.domain.exceptions import NotFound, RuleViolation
from apps.core.domain.services import model_update
from apps.accounts.links import iso8601
from apps.makes import counters, rules
from apps.notifications import services as notification_services
from apps.makes.links import make_api_url, make_public_url
from apps.makes.models import Make, MakeLike
from apps.things import counters as thing_counters
from apps.things.models import Thing
from apps.things.wire import user_event_dict
from apps.uploads.models import Image, Upload
from apps.uploads.files.services import image_delete, upload_image_attach
from apps.uploads.flow.services import object_delete_on_commit, upload_start
from apps.webhooks import services as webhook_services

MAKE_LIKES = LikeTarget(
    like_model=MakeLike,
    field="make",
    event_target_type="make",
    lock=counters.make_lock,
    lock_many=counters.makes_lock,
    count_add=lambda make_ids, delta: counters.make_count_add(make_ids, "like_count", delta),
)


def _lock_make(make_id: int) -> None:
    if not counters.make_lock(make_id):
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


def _make_event(event: str, *, make_id: int, thing_id: int, user_ids, payload) -> None:
    """make_created / make_deleted (apps/webhooks/catalog.py) for the apps the maker or the Thing's creator
    authorized (each app once), in the caller's transaction."""
    webhook_services.webhook_user_event_record(user_ids=user_ids, event=event, payload=payload)


def _create_locked(*, thing: Thing, creator, description: str = "") -> Make:
    make = Make.objects.create(thing=thing, creator=creator, description=description)
    thing_counters.thing_count_add(thing.pk, "make_count", 1)
    event_record(
        recipient=thing.creator, actor=creator, kind=Event.Kind.MAKE, target_type="make", target_id=make.pk
    )
    notification_services.notification_send(
        recipient=thing.creator, actor=creator, kind="make", key=f"make:{make.pk}", subject=thing.name,
        url=f"/make:{make.pk}",
    )
    _make_event(
        "make_created", make_id=make.pk, thing_id=thing.pk, user_ids=[creator.pk, thing.creator_id],
        payload=lambda: {"make": {
            "id": make.pk, "url": make_api_url(make.pk), "public_url": make_public_url(make.pk),
            "description": make.description, "thing_id": thing.pk, "added": iso8601(make.added),
            "user": user_event_dict(creator),
        }},
    )
    return make


def make_create(*, thing: Thing, creator, description: str = "") -> Make:
    """A make of a published Thing (the seed data and tests; the API creates makes at upload finalize).

    Side effects: the Thing's make_count goes up; a `make` event for the Thing's creator.
    """
    with transaction.atomic():
        if not thing_counters.thing_lock(thing.pk):
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
    thing = thing_counters.thing_get_locked(upload.target_id)
    if thing is None or thing.is_hidden or rules.make_create_blockers(thing):
        raise LookupError(upload.target_id)
    make = _create_locked(thing=thing, creator=upload.owner)
    upload_image_attach(upload, size=size, copy_id=make.pk)


def make_image_finalize(upload: Upload, *, size: int) -> None:
    """Upload finalizer (apps.uploads) of `copy_image`: another image of the make. The make's row lock
    holds off a concurrent delete; LookupError when it is already gone."""
    if not counters.make_lock(upload.target_id):
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
        model_update(row, data=data, fields=["description"], also=["modified"])


def make_delete(*, make: Make) -> None:
    """Delete a make irreversibly, with its images (rows now, store objects on commit) and likes; the
    Thing's make_count follows when the make was visible. Deleting it twice is a no-op."""
    with transaction.atomic():
        thing_counters.thing_lock(make.thing_id)
        row = (
            Make.objects.select_for_update(of=("self",)).filter(pk=make.pk)
            .values("is_hidden", "creator_id", "thing__creator_id").first()
        )
        if row is None:
            return
        _delete_locked([make.pk])
        if not row["is_hidden"]:
            thing_counters.thing_count_add(make.thing_id, "make_count", -1)
            _make_event(
                "make_deleted", make_id=make.pk, thing_id=make.thing_id,
                user_ids=[row["creator_id"], row["thing__creator_id"]],
                payload=lambda: {"make": {"id": make.pk, "url": make_api_url(make.pk), "thing_id": make.thing_id}},
            )


def make_hidden_changed(*, make: Make) -> None:
    """After a moderator hid or unhid a make (admin on_hidden/on_unhidden): re-count the Thing's visible
    makes under its lock. A count rather than ±1: the hide committed in its own transaction, so this
    stays exact whatever ran in between."""
    with transaction.atomic():
        if not thing_counters.thing_lock(make.thing_id):
            return
        count = Make.objects.filter(thing_id=make.thing_id, is_hidden=False).count()
        thing_counters.thing_count_set(make.thing_id, "make_count", count)
        if make.is_hidden:  # to apps a hidden make is gone, as a hidden Thing is
            thing_creator_id = Thing.objects.filter(pk=make.thing_id).values_list("creator_id", flat=True).first()
            _make_event(
                "make_deleted", make_id=make.pk, thing_id=make.thing_id,
                user_ids=[make.creator_id, thing_creator_id],
                payload=lambda: {"make": {"id": make.pk, "url": make_api_url(make.pk), "thing_id": make.thing_id}},
            )


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
    counted_like_add(MAKE_LIKES, item=make, user=user)


def make_unlike(*, user, make: Make) -> None:
    """Unlike a make (spec §3); not liking it already is fine. Same lock as make_like. Side effects: the
    `like` event goes (a like taken back is no longer news)."""
    reasons = rules.make_like_blockers(user, make)
    if reasons:
        raise RuleViolation(reasons[0])
    counted_like_remove(MAKE_LIKES, item=make, user=user)


# --- account deletion --------------------------------------------------------------------------------


def makes_release_for_user(*, user) -> None:
    """Before a user is deleted (a release hook, accounts.release): delete their makes, lowering each
    Thing's make_count, and remove their likes of makes, lowering each make's like_count. The cascade
    alone would leave both counters too high.

    Locks Things, then makes, each in id order: the order every other make service takes them.
    """
    with transaction.atomic():
        own = list(Make.objects.filter(creator=user).values_list("pk", "thing_id", "is_hidden"))
        if own:
            thing_counters.things_lock({thing_id for _, thing_id, _ in own})
            visible: dict[int, int] = {}
            for _, thing_id, is_hidden in own:
                if not is_hidden:
                    visible[thing_id] = visible.get(thing_id, 0) + 1
            _delete_locked([pk for pk, _, _ in own])
            for thing_id, n in visible.items():
                thing_counters.thing_count_add(thing_id, "make_count", -n)
        counted_likes_release_for_user(MAKE_LIKES, user=user)
