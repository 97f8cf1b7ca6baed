"""Reads of accounts data. The 404/403 matrix of every /users/{username} endpoint lives here."""

from datetime import datetime

from django.db.models import Count, F, Q, QuerySet
from django.db.models.functions import Lower

from apps.accounts import rules
from apps.accounts.models import Follow, Message, User
from apps.core.domain.exceptions import NotFound, PermissionDenied
from apps.core.pipeline.lookups import id_or_404

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
    message_id = id_or_404(message_id)
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


def users_for_password_reset(*, email: str) -> list[User]:
    """Active accounts whose address is `email` (any case) and that have a usable password: the ones a
    reset link may be sent to (as Django's PasswordResetForm.get_users chooses them)."""
    email = email.strip()
    if not email:
        return []
    users = User.objects.filter(email__iexact=email, is_active=True)
    return [user for user in users if user.has_usable_password()]


def user_closing_summary(*, user) -> dict[str, int]:
    """What closing the account removes, counted for the confirmation page (reverse relations of the
    apps above accounts, by their related names; accounts imports none of them)."""
    related = {"things": "things", "makes": "makes", "collections": "thing_collections", "comments": "comments"}
    counts = {}
    for label, name in related.items():
        manager = getattr(user, name, None)
        counts[label] = manager.count() if manager is not None else 0
    return counts


def user_list_followers(*, user) -> QuerySet:
    """GET /users/{username}/followers (the live service's list): the active users who follow `user`,
    the latest follow first (ties by id). A suspended follower is left out, as everywhere."""
    return (
        User.objects.filter(following_links__followed=user, is_active=True)
        .annotate(followed_at=F("following_links__created"))
        .order_by("-followed_at", "-id")
    )


def user_list_following(*, user) -> QuerySet:
    """GET /users/{username}/following: the active users `user` follows, the latest follow first."""
    return (
        User.objects.filter(follower_links__follower=user, is_active=True)
        .annotate(followed_at=F("follower_links__created"))
        .order_by("-followed_at", "-id")
    )


def user_follow_state(*, user, viewer) -> dict:
    """The follow button's state on a maker's page: {"count": followers (active ones), "following": bool},
    in one query."""
    viewer_pk = viewer.pk if viewer is not None and viewer.is_authenticated else -1
    row = Follow.objects.filter(followed=user, follower__is_active=True).aggregate(
        count=Count("pk"), mine=Count("pk", filter=Q(follower_id=viewer_pk)),
    )
    return {"count": row["count"] or 0, "following": bool(row["mine"])}
