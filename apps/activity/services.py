"""Writes of events: every app that makes news for a user records it here, and takes it back here."""
from apps.activity.models import Event


def event_record(
    *, recipient=None, recipient_id: int | None = None, actor, kind: str, target_type: str = "", target_id=None,
):
    """Note that something happened to a user (what event-count counts). None for one's own actions.

    The target is what the event is about, so that (actor, kind, target) names one happening: the liked
    Thing or make, the new comment, the new make, the collected Thing, the follower. event-count counts
    each (actor, kind, target) once; undoing the action (unlike, unfollow) calls event_retract."""
    recipient_id = recipient.pk if recipient is not None else recipient_id
    assert recipient_id is not None, "an event needs a recipient"
    if actor is not None and actor.pk == recipient_id:
        return None
    return Event.objects.create(
        recipient_id=recipient_id, actor=actor, kind=kind, target_type=target_type, target_id=target_id
    )


def event_retract(
    *, actor, kind: str, target_type: str, target_id=None, target_ids=(), recipient=None,
) -> int:
    """Forget the events of an action that was undone (unlike, unfollow, a Thing taken out of the last
    collection): a like taken back is no longer news, and liking again records it anew, once.
    `actor` is a user or a user id; `target_ids` retracts several targets of one actor at once."""
    ids = [target_id] if target_id is not None else list(target_ids)
    if not ids:
        return 0
    events = Event.objects.filter(actor=actor, kind=kind, target_type=target_type, target_id__in=ids)
    if recipient is not None:
        events = events.filter(recipient=recipient)
    deleted, _ = events.delete()
    return deleted
