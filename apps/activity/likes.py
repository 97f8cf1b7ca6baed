"""Counted likes (spec §3 Like rows), one mechanism for every kind of liked item (Things, makes).

A like is a row of the target kind's `like_model` (a `user`, and a foreign key `field` to the liked item)
plus the item's `like_count`. The app that owns the item describes it with a LikeTarget: how to lock its
row and move its count (Things: apps.things.counters). Every change locks the item's row first, so the
count stays exact under concurrent likes, unlikes and account deletions; several items are locked in id
order, the order every caller takes.
"""
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import models, transaction

from apps.activity.models import Event
from apps.activity.services import event_record, event_retract
from apps.core.domain.exceptions import NotFound


@dataclass(frozen=True)
class LikeTarget:
    like_model: type[models.Model]
    field: str  # the like row's foreign key to the liked item
    event_target_type: str  # the `target_type` of the like's event
    lock: Callable[[int], bool]  # lock the item's row until commit; False when it is gone
    lock_many: Callable[[Iterable[int]], object]  # lock several items' rows, in id order
    count_add: Callable[[Iterable[int], int], object]  # move like_count of these items by delta
    # Called as on_added(item, user) in the like's transaction after a new like (Things: the webhook event).
    on_added: Callable[[Any, Any], None] | None = None


def counted_like_add(target: LikeTarget, *, item, user) -> bool:
    """Like `item`; liking again is a no-op (returns False). Side effects: a `like` event for its creator,
    once; `target.on_added(item, user)`."""
    with transaction.atomic():
        if not target.lock(item.pk):
            raise NotFound()  # deleted since the view read it
        likes = target.like_model._default_manager.filter(user=user, **{f"{target.field}_id": item.pk})
        if likes.exists():
            return False
        target.like_model._default_manager.create(user=user, **{f"{target.field}_id": item.pk})
        target.count_add([item.pk], 1)
        event_record(
            recipient=item.creator, actor=user, kind=Event.Kind.LIKE, target_type=target.event_target_type,
            target_id=item.pk,
        )
        if target.on_added is not None:
            target.on_added(item, user)
        return True


def counted_like_remove(target: LikeTarget, *, item, user) -> None:
    """Unlike `item`; not liking it already is fine. Side effects: the like's event is taken back, so
    liking again counts once (event_retract)."""
    with transaction.atomic():
        if not target.lock(item.pk):
            raise NotFound()
        deleted, _ = target.like_model._default_manager.filter(user=user, **{f"{target.field}_id": item.pk}).delete()
        if deleted:
            target.count_add([item.pk], -1)
            event_retract(
                actor=user, kind=Event.Kind.LIKE, target_type=target.event_target_type, target_id=item.pk
            )


def counted_likes_release_for_user(target: LikeTarget, *, user) -> None:
    """Remove a departing user's likes and lower each item's like_count (the cascade alone would leave
    every count one too high). Runs inside the caller's transaction (an account release hook)."""
    likes = target.like_model._default_manager.filter(user=user)
    item_ids = sorted(likes.values_list(f"{target.field}_id", flat=True))
    if not item_ids:
        return
    target.lock_many(item_ids)
    likes.delete()
    target.count_add(item_ids, -1)
