"""Every state change of an account. Views, admin actions, site pages and tasks all come through here."""

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.cache import caches
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
from apps.core.security import throttle
from apps.core.pipeline.api import site_url
from apps.core.domain.exceptions import NotFound, PermissionDenied, RateLimited, RuleViolation, ValidationFailed
from apps.core.domain.services import model_update
from apps.core.security.throttle import FailureLimit, failure_record, locked_for, wait_message

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

    `address`: the caller's (apps.core.security.throttle.client_address). While it has made too many accounts
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


def user_notify_email_set(*, user: User, choice: str) -> None:
    """How the member hears of notifications by e-mail (none, each, daily); the form checked the choice."""
    if choice not in User.NotifyEmail.values:
        raise ValidationFailed("Choose one of the e-mail options.", errors={"notify_email": ["Not a choice."]})
    if user.notify_email != choice:
        user.notify_email = choice
        user.save(update_fields=["notify_email"])


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
    # add() is atomic in Redis: of two concurrent requests only one sends.
    # The `state` alias: the cooldown outlives a release (settings.cache_aliases).
    if not caches["state"].add(f"accounts:verify-mail:{user.pk}", 1, timeout=VERIFY_COOLDOWN_SECONDS):
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


# --- credentials: password reset, e-mail change (docs/decisions.md "Accounts people can keep") ----------

# A reset link may be asked for a few times an hour per address and per e-mail address: enough for a
# person who mistyped, too few to flood a mailbox or to probe which addresses have accounts.
RESET_ADDRESS_LIMIT = FailureLimit("password-reset:address", limit=10, window_seconds=3600, lock_seconds=3600)
RESET_EMAIL_LIMIT = FailureLimit("password-reset:email", limit=3, window_seconds=3600, lock_seconds=3600)
EMAIL_CHANGE_SALT = "accounts.email-change"
EMAIL_CHANGE_MAX_AGE = timedelta(days=2)
EMAIL_CHANGE_LIMIT = FailureLimit("email-change:account", limit=5, window_seconds=3600, lock_seconds=3600)


def _site_mail(*, to: str, subject: str, template: str, context: dict) -> None:
    send_mail(
        subject=subject,
        message=render_to_string(template, context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[to],
    )


def user_password_reset_request(*, email: str, address: str) -> None:
    """Queue a reset link to every active account with `email`. The answer is the same whether or not
    such an account exists (no account enumeration). RateLimited past the per-address and per-e-mail
    limits; the mail itself is sent by a task, outside the request."""
    email = email.strip()
    ident = email.lower()
    wait = max(locked_for(RESET_ADDRESS_LIMIT, address), locked_for(RESET_EMAIL_LIMIT, ident))
    if wait:
        raise RateLimited(f"Too many reset requests. Try again in {wait_message(wait)}.", retry_after=wait)
    failure_record(RESET_ADDRESS_LIMIT, address)
    failure_record(RESET_EMAIL_LIMIT, ident)
    from apps.accounts.tasks import send_password_reset_email

    # Nothing is written here: the task is sent at once (no transaction to wait for).
    send_password_reset_email.delay(email)


def user_deliver_password_reset(*, email: str) -> int:
    """Send the reset mail now to each active account using `email` with a usable password; the count.

    The link carries Django's password-reset token: it stops working once the password changes (or the
    user logs in), and after settings.PASSWORD_RESET_TIMEOUT."""
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    sent = 0
    for user in selectors.users_for_password_reset(email=email):
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        token = default_token_generator.make_token(user)
        link = site_url(reverse("accounts:password-reset-confirm", args=[uid, token]))
        hours = settings.PASSWORD_RESET_TIMEOUT // 3600
        _site_mail(
            to=user.email,
            subject="Reset your Thingyard password",
            template="accounts/email/password_reset.txt",
            context={"user": user, "link": link, "hours": hours},
        )
        sent += 1
    return sent


def user_password_changed(*, user: User) -> None:
    """After a password change or reset: tell the account's address, so a change the owner did not make
    is noticed. (Django's session hash already signs every other browser session out.)"""
    if user.email:
        _site_mail(
            to=user.email,
            subject="Your Thingyard password was changed",
            template="accounts/email/password_changed.txt",
            context={"user": user, "link": site_url(reverse("accounts:password-reset"))},
        )


def user_email_change_request(*, user: User, new_email: str, password: str) -> None:
    """Ask to move the account to `new_email`: a confirmation link goes to the NEW address (proving it is
    the member's), and a notice to the old one. Nothing changes until the link is opened.
    ValidationFailed for a wrong password or a bad/unchanged address; RateLimited past the limit."""
    new_email = new_email.strip()
    errors: dict[str, list[str]] = {}
    if not user.check_password(password):
        errors["password"] = ["That is not your current password."]
    try:
        validate_email(new_email)
    except DjangoValidationError as exc:
        errors["email"] = list(exc.messages)
    else:
        if new_email.lower() == (user.email or "").lower():
            errors["email"] = ["That is already your address."]
    if errors:
        raise ValidationFailed("The address was not changed.", errors=errors)
    wait = locked_for(EMAIL_CHANGE_LIMIT, str(user.pk))
    if wait:
        raise RateLimited(f"Too many changes. Try again in {wait_message(wait)}.", retry_after=wait)
    failure_record(EMAIL_CHANGE_LIMIT, str(user.pk))
    # The current address is signed too: once the address changes, older links stop working.
    token = signing.TimestampSigner(salt=EMAIL_CHANGE_SALT).sign_object(
        {"id": user.pk, "old": user.email, "new": new_email}
    )
    link = site_url(reverse("accounts:email-change-confirm", args=[token]))
    context = {"user": user, "link": link, "new_email": new_email, "days": EMAIL_CHANGE_MAX_AGE.days}
    _site_mail(
        to=new_email, subject="Confirm your new e-mail address",
        template="accounts/email/email_change_confirm.txt", context=context,
    )
    if user.email:
        _site_mail(
            to=user.email, subject="A change of your Thingyard e-mail address was asked for",
            template="accounts/email/email_change_notice.txt", context=context,
        )


def user_email_change_confirm(*, token: str) -> User:
    """Open the confirmation link: the account takes the new address, verified. RuleViolation for a bad,
    expired or outdated link."""
    try:
        payload = signing.TimestampSigner(salt=EMAIL_CHANGE_SALT).unsign_object(
            token, max_age=EMAIL_CHANGE_MAX_AGE
        )
    except signing.SignatureExpired:
        raise RuleViolation("This link has expired. Ask for the change again from your account page.") from None
    except (signing.BadSignature, ValueError):
        raise RuleViolation("This link is not valid.") from None
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=payload.get("id"), is_active=True).first()
        if user is None or (user.email or "") != str(payload.get("old", "")):
            raise RuleViolation("This link is not valid any more.")
        user.email = str(payload["new"])
        user.email_verified = True
        user.save(update_fields=["email", "email_verified"])
    return user


def user_close_account(*, user: User, password: str, confirm_username: str) -> None:
    """The member closes their own account from the site: the password and the typed user name confirm
    it; then user_delete (tokens revoked, Things, makes and collections removed, comments released).
    ValidationFailed when a confirmation is wrong; RuleViolation when records must be kept."""
    errors: dict[str, list[str]] = {}
    if not user.check_password(password):
        errors["password"] = ["That is not your current password."]
    if confirm_username.strip().lower() != user.username.lower():
        errors["confirm_username"] = ["Type your user name exactly to confirm."]
    if errors:
        raise ValidationFailed("Your account was not closed.", errors=errors)
    user_delete(user=user)


def moderation_notice_send(*, moderator: User, recipient: User, body: str) -> Message | None:
    """A moderator's notice to a member (an item hidden with its reason, a warning, an appeal decided),
    as a private message: it shows in the member's inbox and unread count. No rate limit and no
    blocking: it is the site speaking. None when the recipient is gone or inactive."""
    if recipient is None or not recipient.is_active:
        return None
    return Message.objects.create(sender=moderator, recipient=recipient, body=body[: rules.MESSAGE_BODY_MAX_LENGTH])
