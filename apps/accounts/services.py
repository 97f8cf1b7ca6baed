"""Every state change of an account. Views, admin actions, site pages and tasks all come through here."""

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError, RestrictedError
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_grant_model,
    get_id_token_model,
    get_refresh_token_model,
)

from apps.accounts import rules, selectors
from apps.accounts.models import Follow, Message, User
from apps.accounts.release import user_release_hooks
from apps.activity.models import Event
from apps.activity.services import event_record, event_retract
from apps.core import throttle
from apps.core.api import site_url
from apps.core.exceptions import NotFound, PermissionDenied, RateLimited, RuleViolation, ValidationFailed
from apps.core.services import model_update

log = logging.getLogger(__name__)

VERIFY_SALT = "accounts.verify-email"
VERIFY_MAX_AGE = timedelta(days=3)
# One verification mail per user per minute: the endpoint must not become a way to flood a mailbox.
VERIFY_COOLDOWN_SECONDS = 60


# --- profile ---------------------------------------------------------------------------------------


def user_update(*, user: User, data: dict) -> User:
    """Change profile fields (spec §2: first_name, last_name, bio, location, default_license)."""
    errors = rules.user_profile_errors(data)
    if errors:
        field, messages = next(iter(errors.items()))
        raise ValidationFailed(f"{field}: {messages[0]}", errors=errors)
    # Only the changed columns: a concurrent last_active touch or suspension is not overwritten.
    model_update(user, data=data, fields=data)
    return user


def user_image_replace(*, user_id: int, field: str, key: str) -> str:
    """Set the user's avatar or cover to the stored object `key`, under the user's row lock; returns the
    key it replaced ("" for none). LookupError when the user is gone. For the upload flow's finalizer."""
    if field not in ("avatar", "cover"):
        raise ValueError(f"not a profile image: {field}")
    user = User.objects.select_for_update().filter(pk=user_id).only("pk", field).first()
    if user is None:
        raise LookupError(user_id)
    previous = getattr(user, field)
    setattr(user, field, key)
    user.save(update_fields=[field])
    return previous


def user_register(*, username: str, email: str, password: str, address: str | None = None) -> User:
    """Create an account from the sign-up page; every rule failure is a ValidationFailed with field errors.

    `address`: the caller's (apps.core.throttle.client_address). While it has made too many accounts
    (rules.SIGNUP_ADDRESS_LIMIT) the sign-up is refused with RateLimited before anything is checked or
    hashed; each account created counts.
    """
    wait = throttle.locked_for(rules.SIGNUP_ADDRESS_LIMIT, address)
    if wait:
        raise RateLimited(rules.signup_throttled_message(wait), retry_after=wait)
    user = _user_create(username=username, email=email, password=password)
    throttle.failure_record(rules.SIGNUP_ADDRESS_LIMIT, address)
    return user


def _user_create(*, username: str, email: str, password: str) -> User:
    errors: dict[str, list[str]] = {}
    reasons = rules.username_blockers(username)
    if not reasons and selectors.user_name_taken(username):
        reasons = ["A user with that name already exists."]
    if reasons:
        errors["username"] = reasons
    try:
        validate_email(email)
    except DjangoValidationError as exc:
        errors["email"] = list(exc.messages)
    try:
        validate_password(password, User(username=username, email=email))
    except DjangoValidationError as exc:
        errors["password"] = list(exc.messages)
    if errors:
        raise ValidationFailed("The account could not be created.", errors=errors)
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, email=email, password=password)
    except IntegrityError:
        # Two sign-ups for the same name (any case) raced; the Lower(username) constraint kept one.
        raise ValidationFailed(
            "The account could not be created.",
            errors={"username": ["A user with that name already exists."]},
        ) from None


def _revoke_tokens(user: User) -> None:
    """Every OAuth credential the user holds stops working at once (access, refresh, pending codes)."""
    # Codes first, so an exchange racing with us cannot mint a token after the tokens are gone.
    get_grant_model().objects.filter(user=user).delete()
    get_refresh_token_model().objects.filter(user=user).delete()
    get_access_token_model().objects.filter(user=user).delete()
    get_id_token_model().objects.filter(user=user).delete()


@transaction.atomic
def user_delete(*, user: User, application=None) -> None:
    """Delete the account irreversibly, revoking its tokens first.

    `application` is the app the API request came through (spec §4.1 "Restricted", see
    rules.user_delete_blockers); None for the site and the admin, which are trusted.
    """
    if application is not None:
        reasons = rules.user_delete_blockers(application=application)
        if reasons:
            raise PermissionDenied(reasons[0])
    _revoke_tokens(user)
    # Apps that build on accounts keep their counters exact before the cascade removes the rows
    # (apps.accounts.release: each registers what to release, accounts imports none of them).
    for release in user_release_hooks():
        release(user=user)
    try:
        with transaction.atomic():
            user.delete()
    except (ProtectedError, RestrictedError):
        # Another app keeps rows that must outlive the account (e.g. paid orders): refuse, never a 500.
        raise RuleViolation("This account has records that must be kept; contact support to close it.") from None


# --- moderation ------------------------------------------------------------------------------------


@transaction.atomic
def user_suspend(*, user: User, reason: str, actor: User | None = None) -> User:
    """Lock the account: it can no longer sign in and every OAuth token it holds is revoked."""
    reasons = rules.user_suspend_blockers(actor=actor, user=user)
    if reasons:
        raise RuleViolation(reasons[0])
    user.is_active = False
    user.suspended_reason = reason
    user.save(update_fields=["is_active", "suspended_reason"])
    _revoke_tokens(user)
    return user


def user_unsuspend(*, user: User) -> User:
    """Reopen a suspended account. Revoked tokens stay revoked: apps must be authorized again."""
    if user.is_active and not user.suspended_reason:
        return user
    user.is_active = True
    user.suspended_reason = ""
    user.save(update_fields=["is_active", "suspended_reason"])
    return user


# --- follows ----------------------------------------------------------------------------


def user_follow(*, follower: User, followed: User) -> Follow:
    """Follow a user (spec §4.1); following again is a no-op. Side effects: a `follow` event, once."""
    reasons = rules.user_follow_blockers(follower, followed)
    if reasons:
        raise RuleViolation(reasons[0])
    with transaction.atomic():
        # get_or_create inserts in a savepoint and re-reads on IntegrityError, so two concurrent POSTs
        # end with one row (accounts_follow_unique) and one event.
        follow, created = Follow.objects.get_or_create(follower=follower, followed=followed)
        if created:
            event_record(
                recipient=followed,
                actor=follower,
                kind=Event.Kind.FOLLOW,
                target_type="user",
                target_id=follower.pk,
            )
    return follow


def user_unfollow(*, follower: User, followed: User) -> None:
    """Stop following (spec §4.1); not following already is fine. Side effects: the `follow` event goes."""
    with transaction.atomic():
        deleted, _ = Follow.objects.filter(follower=follower, followed=followed).delete()
        if deleted:
            # A follow event's target is the follower (the user to look at): the recipient tells them apart.
            event_retract(
                actor=follower, kind=Event.Kind.FOLLOW, target_type="user", target_id=follower.pk,
                recipient=followed,
            )


# --- e-mail verification ---------------------------------------------------------------------------


def _verification_token(user: User) -> str:
    # The address is signed too: a link sent to an old address cannot verify a new one.
    return signing.TimestampSigner(salt=VERIFY_SALT).sign_object({"id": user.pk, "email": user.email})


def user_send_verification(*, user: User) -> bool:
    """Queue the verification mail (spec §4.1 verify-account). False when nothing was sent.

    Side effects: enqueues tasks.send_verification_email. Already verified, or a mail sent in the last
    minute: nothing is sent and the call still succeeds.
    """
    reasons = rules.user_verification_blockers(user)
    if reasons:
        raise RuleViolation(reasons[0])
    if user.email_verified:
        return False
    # cache.add is atomic in Redis: of two concurrent requests only one sends.
    if not cache.add(f"accounts:verify-mail:{user.pk}", 1, timeout=VERIFY_COOLDOWN_SECONDS):
        return False
    from apps.accounts.tasks import send_verification_email

    send_verification_email.delay(user.pk)
    return True


def user_deliver_verification(*, user: User) -> None:
    """Send the verification mail now (called by the task: the SMTP call stays out of the request)."""
    if not user.email or user.email_verified:
        return
    link = site_url(reverse("accounts:verify-email", args=[_verification_token(user)]))
    context = {"user": user, "link": link, "days": VERIFY_MAX_AGE.days}
    send_mail(
        subject="Confirm your e-mail address",
        message=render_to_string("accounts/email/verify_email.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[user.email],
    )


def user_verify_email(*, token: str) -> User:
    """Mark the address in a verification link as verified. RuleViolation for a bad or expired link."""
    try:
        payload = signing.TimestampSigner(salt=VERIFY_SALT).unsign_object(token, max_age=VERIFY_MAX_AGE)
    except signing.SignatureExpired:
        raise RuleViolation("This link has expired. Ask for a new one from your account page.") from None
    except (signing.BadSignature, ValueError):
        raise RuleViolation("This link is not valid.") from None
    user = User.objects.filter(pk=payload.get("id"), is_active=True).first()
    if user is None or user.email.lower() != str(payload.get("email", "")).lower():
        raise RuleViolation("This link is not valid.")
    if not user.email_verified:
        user.email_verified = True
        user.save(update_fields=["email_verified"])
    return user


# --- private messages --------------------------------------------------------------------------------


def message_send(*, sender: User, to: str, body: str) -> Message:
    """Send a private message to the active user named `to` (the site's /account/messages/new).

    ValidationFailed with field errors (`to`, `body`); RateLimited past rules.MESSAGES_PER_HOUR."""
    try:
        recipient = selectors.user_get_by_name(to.strip(), viewer=None) if to.strip() else None
    except NotFound:
        recipient = None
    errors = rules.message_send_errors(sender=sender, recipient=recipient, body=body)
    if errors:
        field, messages = next(iter(errors.items()))
        raise ValidationFailed(f"{field}: {messages[0]}", errors=errors)
    with transaction.atomic():
        # The sender's row lock makes concurrent sends of one user count one at a time, so the cap holds.
        User.objects.select_for_update().filter(pk=sender.pk).values_list("pk", flat=True).first()
        since = timezone.now() - timedelta(hours=1)
        if selectors.message_sent_count_since(user=sender, since=since) >= rules.MESSAGES_PER_HOUR:
            raise RateLimited(
                f"You can send at most {rules.MESSAGES_PER_HOUR} messages an hour. Try again later.",
                retry_after=3600,
            )
        assert recipient is not None  # message_send_errors names a missing recipient
        return Message.objects.create(sender=sender, recipient=recipient, body=body.strip())


def message_mark_read(*, message: Message, user: User) -> bool:
    """Mark a received message as read. False when it was read already or `user` is not its recipient."""
    now = timezone.now()
    updated = Message.objects.filter(pk=message.pk, recipient=user, read_at__isnull=True).update(read_at=now)
    if updated:
        message.read_at = now
    return bool(updated)


def message_mark_all_read(*, user: User) -> int:
    """Mark every unread message of `user` as read; returns how many were unread."""
    return Message.objects.filter(recipient=user, read_at__isnull=True).update(read_at=timezone.now())
