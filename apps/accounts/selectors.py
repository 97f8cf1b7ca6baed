"""Reads of accounts data. The 404/403 matrix of every /users/{username} endpoint lives here."""

from collections.abc import Callable
from datetime import datetime

from django.db.models import BigIntegerField, Exists, F, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce, Lower

from apps.accounts import rules
from apps.accounts.models import Event, Message, User
from apps.core.exceptions import NotFound, PermissionDenied

ME = "me"


def user_get_by_name(name: str, *, viewer) -> User:
    """spec §4.1: `username`, or the literal `me` for the caller. Unknown (or suspended) users are 404."""
    authenticated = viewer is not None and viewer.is_authenticated
    if name == ME:
        if not authenticated:
            raise NotFound()
        return viewer
    # The caller naming themselves needs no query: the token already loaded them.
    if authenticated and name.lower() == viewer.username.lower():
        return viewer
    # Lower(username) matches the case-insensitive unique index, so this is an index lookup.
    user = (
        User.objects.alias(username_lower=Lower("username"))
        .filter(username_lower=name.lower(), is_active=True)
        .first()
    )
    if user is None:
        # A suspended account is hidden as if it did not exist (it cannot sign in either).
        raise NotFound()
    return user


def user_get_own(name: str, *, viewer) -> User:
    """An endpoint only the owner may use: 404 for an unknown user, 403 for someone else's."""
    user = user_get_by_name(name, viewer=viewer)
    if not rules.user_can_edit(viewer, user):
        raise PermissionDenied()
    return user


def user_name_taken(username: str) -> bool:
    return (
        User.objects.alias(username_lower=Lower("username")).filter(username_lower=username.lower()).exists()
    )


# --- events ----------------------------------------------------------------------------------------

# target_type → the live targets of that type (a queryset factory). Apps register theirs from
# AppConfig.ready() (things: "thing"); an event whose registered target was deleted or hidden by a
# moderator stops counting. Unregistered target types always count.
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


# --- private messages --------------------------------------------------------------------------------


def _messages_shown() -> Q:
    # A suspended sender's messages are withheld, as the account is (they come back if it is reopened).
    return Q(sender__is_active=True)


def message_list_inbox(*, user) -> QuerySet:
    """The messages `user` received, newest first, with their senders."""
    return (
        Message.objects.filter(_messages_shown(), recipient=user)
        .select_related("sender")
        .order_by("-created", "-id")
    )


def message_list_sent(*, user) -> QuerySet:
    """The messages `user` sent, newest first, with their recipients."""
    return Message.objects.filter(sender=user).select_related("recipient").order_by("-created", "-id")


def message_get_for_user(message_id, *, user) -> Message:
    """A message `user` sent or received; 404 for any other (or unknown) id."""
    try:
        message_id = int(message_id)
    except (TypeError, ValueError):
        raise NotFound() from None
    received = Q(_messages_shown(), recipient=user)
    message = (
        Message.objects.filter(received | Q(sender=user), pk=message_id)
        .select_related("sender", "recipient")
        .first()
    )
    if message is None:
        raise NotFound()
    return message


def message_sent_count_since(*, user, since: datetime) -> int:
    return Message.objects.filter(sender=user, created__gte=since).count()


def unread_message_count(*, user) -> int:
    """spec §4.1 unread-message-count: the caller's received messages not opened yet."""
    return Message.objects.filter(_messages_shown(), recipient=user, read_at__isnull=True).count()


def user_is_following(*, follower, followed) -> bool:
    return follower.following_links.filter(followed=followed).exists()
