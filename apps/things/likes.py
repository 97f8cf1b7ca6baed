"""Counted likes (spec §3 Like rows), shared by Things and makes (copies).

A like is a row in `like_model` (a `user` and a foreign key `field` to `target_model`) plus the target's
`like_count`. Every change locks the target's row first, so the counter stays exact under concurrent likes,
unlikes and account deletions; several targets are locked in id order, the order every caller takes.
`count_update(queryset, **values)` writes the counter (a plain update() by default; Things pass
apps.search's, which keeps their search rows in the same statement).
"""
from django.db import transaction
from django.db.models import F

from apps.accounts.models import Event
from apps.accounts.services import event_record, event_retract
from apps.core.exceptions import NotFound


def _lock_target(target_model, pk: int) -> None:
    if not target_model.objects.select_for_update().filter(pk=pk).values_list("pk", flat=True):
        raise NotFound()  # deleted since the view read it


def _update(queryset, **values) -> int:
    return queryset.update(**values)


def counted_like_add(*, like_model, target_model, field: str, target, user, event_target_type: str,
                     count_update=_update) -> None:
    """Like `target`; liking again is a no-op. Side effects: a `like` event for its creator, once."""
    with transaction.atomic():
        _lock_target(target_model, target.pk)
        if like_model.objects.filter(user=user, **{f"{field}_id": target.pk}).exists():
            return
        like_model.objects.create(user=user, **{f"{field}_id": target.pk})
        count_update(target_model.objects.filter(pk=target.pk), like_count=F("like_count") + 1)
        event_record(
            recipient=target.creator, actor=user, kind=Event.Kind.LIKE, target_type=event_target_type,
            target_id=target.pk,
        )


def counted_like_remove(*, like_model, target_model, field: str, target, user, event_target_type: str,
                        count_update=_update) -> None:
    """Unlike `target`; not liking it already is fine. Side effects: the like's event is taken back, so
    liking again counts once (accounts.event_retract)."""
    with transaction.atomic():
        _lock_target(target_model, target.pk)
        deleted, _ = like_model.objects.filter(user=user, **{f"{field}_id": target.pk}).delete()
        if deleted:
            target_row = target_model.objects.filter(pk=target.pk)
            count_update(target_row, like_count=F("like_count") - 1)
            event_retract(actor=user, kind=Event.Kind.LIKE, target_type=event_target_type, target_id=target.pk)


def counted_likes_release_for_user(
    *, like_model, target_model, field: str, user, count_update=_update
) -> None:
    """Remove a departing user's likes and lower each target's like_count (the cascade alone would leave
    every count one too high). Runs inside the caller's transaction."""
    target_ids = sorted(like_model.objects.filter(user=user).values_list(f"{field}_id", flat=True))
    if not target_ids:
        return
    list(target_model.objects.select_for_update().filter(pk__in=target_ids).order_by("pk").values_list("pk"))
    like_model.objects.filter(user=user).delete()
    count_update(target_model.objects.filter(pk__in=target_ids), like_count=F("like_count") - 1)
