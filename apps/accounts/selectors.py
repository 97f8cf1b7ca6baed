"""Reads of accounts data. The 404/403 matrix of every /users/{username} endpoint lives here."""

from datetime import datetime

from django.db.models.functions import Lower

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


def event_count_since(*, user, since: datetime | None) -> int:
    """spec §4.1 event-count: the user's events created after `since` (all of them when None)."""
    events = Event.objects.filter(recipient=user)
    if since is not None:
        events = events.filter(created__gt=since)
    return events.count()


def unread_message_count(*, user) -> int:
    return Message.objects.filter(recipient=user, read_at__isnull=True).count()


def user_is_following(*, follower, followed) -> bool:
    return follower.following_links.filter(followed=followed).exists()
