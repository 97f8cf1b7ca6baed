"""Writes of device sign-in (RFC 8628): the grant's creation, each poll, the person's decision, the claim."""
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from oauth2_provider.models import get_device_grant_model

from apps.core.security import throttle
from apps.core.domain.exceptions import RuleViolation
from apps.oauth import services as oauth_services
from apps.oauth.device import rules
from apps.oauth.device.selectors import device_code_checksum


class DeviceCodeNotPending(RuleViolation):
    """The code was decided, expired or claimed meanwhile (another tab, the device's own expiry)."""

    error_type = "DEVICE_CODE_NOT_PENDING"


def device_grant_create(*, application, device_code: str, user_code: str, scope: str, address: str | None):
    """Start a device sign-in for `application`, counted against the caller's `address`; returns the grant
    (its user code may differ from the one given, which another pending sign-in already had)."""
    throttle.failure_record(rules.DEVICE_CODE_ADDRESS_LIMIT, address)
    model = get_device_grant_model()
    now = timezone.now()
    for attempt in range(5):
        code = user_code if attempt == 0 else rules.user_code_generate()
        try:
            with transaction.atomic():
                return model.objects.create(
                    application=application,
                    client_id=application.client_id,
                    device_code=device_code_checksum(device_code),
                    user_code=rules.user_code_normalize(code),
                    scope=scope,
                    interval=rules.POLL_INTERVAL_SECONDS,
                    expires=now + timedelta(seconds=rules.DEVICE_CODE_SECONDS),
                    last_checked=None,
                )
        except IntegrityError:
            continue  # a user code in use (1 in 2^34 per pending grant): draw another
    raise RuntimeError("no free user code after 5 draws")


def device_grant_poll(*, grant) -> str:
    """One poll of the token endpoint: the outcome (rules.POLL_*), recording the poll's time, and on
    `slow_down` the longer interval (RFC 8628 §3.5)."""
    model = get_device_grant_model()
    now = timezone.now()
    expired = rules.device_grant_is_expired(expires=grant.expires, now=now)
    too_soon = rules.poll_too_soon(last_checked=grant.last_checked, interval=grant.interval, now=now)
    outcome = rules.poll_outcome(status=grant.status, expired=expired, too_soon=too_soon)
    rows = model.objects.filter(pk=grant.pk)
    if outcome == rules.POLL_EXPIRED:
        rows.filter(status__in=[rules.PENDING, rules.AUTHORIZED]).update(status=rules.EXPIRED)
    elif outcome == rules.POLL_SLOW_DOWN:
        rows.update(interval=rules.slowed_interval(grant.interval), last_checked=now)
    elif outcome != rules.POLL_DENIED:
        # Claim this poll's slot: of two polls at once, only one sees the last poll's time unchanged.
        if not rows.filter(last_checked=grant.last_checked).update(last_checked=now):
            return rules.POLL_SLOW_DOWN
    return outcome


def device_grant_approve(*, grant, user) -> None:
    """`user` approves the sign-in: their consent to the app is recorded (the unapproved-app user limit
    applies: ApplicationUserLimitReached) and the device's next poll gets a token."""
    with transaction.atomic():
        oauth_services.authorization_grant(application=grant.application, user=user, scope=grant.scope)
        decided = (
            get_device_grant_model()
            .objects.filter(pk=grant.pk, status=rules.PENDING, expires__gt=timezone.now())
            .update(status=rules.AUTHORIZED, user=user)
        )
        if not decided:
            raise DeviceCodeNotPending("This code has expired or was already used.")


def device_grant_deny(*, grant, user) -> None:
    """`user` refuses the sign-in: the device's next poll gets access_denied."""
    decided = (
        get_device_grant_model()
        .objects.filter(pk=grant.pk, status=rules.PENDING, expires__gt=timezone.now())
        .update(status=rules.DENIED, user=user)
    )
    if not decided:
        raise DeviceCodeNotPending("This code has expired or was already used.")


def device_grant_claim(*, grant) -> bool:
    """Use an approved grant up (inside the token's transaction): of two polls that both saw it approved,
    only one deletes it, and the other's token is rolled back. True when claimed."""
    claimed, _ = get_device_grant_model().objects.filter(pk=grant.pk, status=rules.AUTHORIZED).delete()
    return bool(claimed)


def device_grants_purge(*, older_than_seconds: int = 86400) -> int:
    """Delete device grants that expired more than a day ago (their device has long stopped polling)."""
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    deleted, _ = get_device_grant_model().objects.filter(expires__lt=cutoff).delete()
    return deleted


def user_code_failure_record(*, user, address: str | None) -> int:
    """Count a wrong, expired or used code entered; the seconds entering codes is now paused (0: not)."""
    return max(
        throttle.failure_record(rules.USER_CODE_ACCOUNT_LIMIT, str(user.pk)),
        throttle.failure_record(rules.USER_CODE_ADDRESS_LIMIT, address),
    )
