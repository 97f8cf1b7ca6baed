"""Reads of events: what event-count counts (spec §4.1), with the targets apps register."""
from collections.abc import Callable
from datetime import datetime

from django.db.models import BigIntegerField, Exists, F, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce

from apps.activity.models import Event

# target_type → the live targets of that type (a queryset factory). Apps register theirs from
# AppConfig.ready() (things: "thing", makes: "make", comments: "comment"); an event whose registered
# target was deleted or hidden by a moderator stops counting. Unregistered target types always count.
EVENT_TARGETS: dict[str, Callable[[], QuerySet]] = {}


def event_target_register(target_type: str, live_targets: Callable[[], QuerySet]) -> None:
    EVENT_TARGETS[target_type] = live_targets


def event_list_counted(*, user, since: datetime | None = None) -> QuerySet:
    """The events event-count counts: after `since`, by an active actor (a suspended account's likes
    and follows are hidden like the account), about a target that still exists and is not hidden."""
    events = Event.objects.filter(recipient=user).filter(Q(actor__isnull=True) | Q(actor__is_active=True))
    if since is not None:
        events = events.filter(created__gt=since)
    for target_type, live_targets in EVENT_TARGETS.items():
        live = live_targets().filter(pk=OuterRef("target_id"))
        events = events.filter(~Q(target_type=target_type) | Exists(live))
    return events


def event_count_since(*, user, since: datetime | None) -> int:
    """spec §4.1 event-count: the user's events created after `since` (all of them when None).

    One per (actor, kind, target): liking, unliking and liking again, or collecting a Thing into two
    collections, is one event. An event without a target counts on its own."""
    events = event_list_counted(user=user, since=since)
    target_key = Coalesce("target_id", -F("pk"), output_field=BigIntegerField())
    keys = events.annotate(target_key=target_key).values(
        "actor_id", "kind", "target_type", "target_key"
    )
    return keys.distinct().count()
