"""The one owner of a Thing's counters and its row lock (spec §2: like, comment, make, collect, file and
download counts). Every app that moves a count or must hold a Thing still calls these: uploads (files,
downloads), makes, comments, collections and likes (apps.activity.likes).

Counts move by F() updates, under the Thing's row lock (the UPDATE itself takes it until commit), so
concurrent changes never lose one. A count an index keeps a copy of (search orders by likes, makes and
downloads) is written by that index, in the same statement (hooks.thing_counters_write). Several Things are always locked in id order, the order every caller
takes, so two transactions never wait for each other crosswise.
"""
from collections.abc import Iterable

from django.db.models import F, QuerySet

from apps.things.hooks import thing_counters_write
from apps.things.models import Thing

COUNTERS = frozenset(
    {"like_count", "comment_count", "make_count", "collect_count", "file_count", "download_count"}
)


def _ids(thing_ids: int | Iterable[int]) -> list[int]:
    return [thing_ids] if isinstance(thing_ids, int) else sorted(set(thing_ids))


def thing_lock(thing_id: int) -> bool:
    """Hold the Thing's row until commit (a concurrent delete waits); False when it is already gone."""
    return Thing.objects.select_for_update().filter(pk=thing_id).values_list("pk", flat=True).first() is not None


def things_lock(thing_ids: Iterable[int], *, no_key: bool = False) -> list[int]:
    """Hold these Things' rows until commit, in id order; the ids of those that still exist.

    `no_key`: FOR NO KEY UPDATE, enough to keep them from being deleted while rows pointing at them are
    inserted (remix links), without blocking the counters' updates."""
    rows = Thing.objects.select_for_update(no_key=no_key).filter(pk__in=_ids(thing_ids)).order_by("pk")
    return list(rows.values_list("pk", flat=True))


def thing_get_locked(thing_id: int, *, queryset: QuerySet | None = None) -> Thing | None:
    """The Thing's row, read under its lock (None when gone): for a change that depends on its state."""
    return (queryset if queryset is not None else Thing.objects).select_for_update().filter(pk=thing_id).first()


def thing_count_add(thing_ids: int | Iterable[int], counter: str, delta: int) -> int:
    """Move `counter` by `delta` on these Things; returns how many rows changed (0: the Thing is gone).

    A count never goes below 0 (the column's check): a row that would is left as it is."""
    if counter not in COUNTERS:
        raise ValueError(f"not a Thing counter: {counter}")
    ids = _ids(thing_ids)
    rows = Thing.objects.filter(pk__in=ids)
    if delta < 0:
        rows = rows.filter(**{f"{counter}__gte": -delta})
    # The UPDATE moves the Things' versions (the database's trigger), which the cached bodies follow.
    return thing_counters_write(rows, **{counter: F(counter) + delta})


def thing_count_set(thing_id: int, counter: str, value: int) -> int:
    """Set `counter` to a value counted under the Thing's lock (a re-count after moderation)."""
    if counter not in COUNTERS:
        raise ValueError(f"not a Thing counter: {counter}")
    return thing_counters_write(Thing.objects.filter(pk=thing_id), **{counter: value})
