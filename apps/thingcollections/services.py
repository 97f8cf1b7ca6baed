"""Writes of collections (spec §4.5). `application` is the calling OAuth app (the API always passes
request.auth.application), or None for the user's own site session, which the app rules do not limit.

Every write locks the collection row first, so adds, removes and deletes of one collection run one at a
time and each Thing's `collect_count` (the number of collections holding it) stays exact."""
from django.db import transaction
from django.utils import timezone

from apps.activity.models import Event
from apps.activity.services import event_record, event_retract
from apps.core.domain.exceptions import NotFound, PermissionDenied
from apps.core.domain.services import model_update
from apps.things.counters import thing_count_add
from apps.thingcollections import rules
from apps.thingcollections.models import Collection, CollectionThing


def _lock(collection) -> Collection:
    locked = Collection.objects.select_for_update().filter(pk=collection.pk).first()
    if locked is None:  # deleted by a concurrent request
        raise NotFound()
    return locked


def _touch(collection) -> None:
    Collection.objects.filter(pk=collection.pk).update(modified=timezone.now())


def _collect_count_lower(thing_ids) -> None:
    thing_count_add(thing_ids, "collect_count", -1)  # never below 0 (apps.things.counters)


def collection_create(*, creator, name: str, description: str = "", application=None) -> Collection:
    """A new collection of `creator`, remembering which app (if any) created it."""
    return Collection.objects.create(
        creator=creator, name=name, description=description, created_by_app=application
    )


def collection_update(*, collection, user, data: dict, application=None) -> Collection:
    """Change name and/or description. 403 unless the user owns it and the app created it."""
    with transaction.atomic():
        collection = _lock(collection)
        if not rules.collection_can_edit(user, collection, application=application):
            raise PermissionDenied()
        model_update(collection, data=data, fields=["name", "description"], also=["modified"])
    return collection


def collection_set_featured(*, collection, featured: bool) -> None:
    """Feature or unfeature a collection (the admin's action); repeating either is a no-op."""
    Collection.objects.filter(pk=collection.pk, is_featured=not featured).update(is_featured=featured)


def collection_delete(*, collection, user, application=None) -> None:
    """Delete a collection, lowering `collect_count` of every Thing it held. Same 403 rule as update."""
    with transaction.atomic():
        collection = _lock(collection)
        if not rules.collection_can_edit(user, collection, application=application):
            raise PermissionDenied()
        _delete_locked(collection)


def _collect_events_retract(*, collector_id: int, thing_ids) -> None:
    """A Thing no longer in any of the collector's collections is no longer news for its creator."""
    still = set(
        CollectionThing.objects.filter(collection__creator_id=collector_id, thing_id__in=thing_ids)
        .values_list("thing_id", flat=True)
    )
    gone = sorted(set(thing_ids) - still)
    event_retract(actor=collector_id, kind=Event.Kind.COLLECT, target_type="thing", target_ids=gone)


def _delete_locked(collection) -> None:
    thing_ids = list(collection.entries.values_list("thing_id", flat=True))
    collection.delete()
    _collect_count_lower(thing_ids)
    _collect_events_retract(collector_id=collection.creator_id, thing_ids=thing_ids)


def collection_add_thing(
    *, collection, thing, user, description: str | None = None, application=None
) -> CollectionThing:
    """Add a Thing (spec §4.5: apps may add to any collection the user owns). Adding it again is a
    no-op, except that a given `description` replaces the reason; who added it first stays.

    Side effects: a `collect` event for the Thing's creator (event-count counts it once per collector)."""
    with transaction.atomic():
        collection = _lock(collection)
        if not rules.collection_can_add_thing(user, collection):
            raise PermissionDenied()
        entry, created = CollectionThing.objects.get_or_create(
            collection=collection,
            thing_id=thing.pk,
            defaults={"description": description or "", "added_by_app": application},
        )
        if created:
            thing_count_add(thing.pk, "collect_count", 1)
            event_record(
                recipient_id=thing.creator_id, actor=user, kind=Event.Kind.COLLECT, target_type="thing",
                target_id=thing.pk,
            )
        elif description is not None and description != entry.description:
            entry.description = description
            entry.save(update_fields=["description"])
        else:
            return entry
        _touch(collection)
    return entry


def collection_remove_thing(*, collection, thing_id: int, user, application=None) -> None:
    """Take a Thing out (spec §4.5: apps may remove only the Things they added). 404 if not in it."""
    with transaction.atomic():
        collection = _lock(collection)
        entry = CollectionThing.objects.filter(collection=collection, thing_id=thing_id).first()
        if entry is None:
            raise NotFound()
        if not rules.collection_can_remove_thing(user, collection, entry, application=application):
            raise PermissionDenied()
        entry.delete()
        _collect_count_lower([thing_id])
        _collect_events_retract(collector_id=collection.creator_id, thing_ids=[thing_id])
        _touch(collection)


def collections_release_for_user(*, user) -> None:
    """Delete a departing user's collections, keeping `collect_count` exact (the cascade alone would
    leave every collected Thing's counter one too high). A release hook of account deletion (accounts.release)."""
    for collection in Collection.objects.filter(creator=user).order_by("pk"):
        with transaction.atomic():
            _delete_locked(_lock(collection))
