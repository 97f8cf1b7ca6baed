"""Writes of the OAuth provider: consent records (10-user limit), revocation, code replay defence."""
import hashlib

from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.db import transaction
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
    revoke_access_token,
)

from apps.core.security import throttle
from apps.core.domain.exceptions import PermissionDenied
from apps.oauth import rules
from apps.oauth.models import AppAuthorization, AuthorizationCodeUse


class ApplicationUserLimitReached(PermissionDenied):
    """spec §5/§8: an unapproved application already serves its maximum number of users."""

    error_type = "APP_USER_LIMIT"

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(
            f"This application is awaiting review and is limited to {limit} users until it is approved."
        )


def _code_checksum(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def authorization_grant(*, application, user, scope: str = "") -> AppAuthorization:
    """Record `user`'s consent to `application` (and the scopes granted, added to any granted before),
    counting them toward the unapproved-app user limit."""
    with transaction.atomic():
        # Lock the app row so concurrent consents count one at a time: the 11th can never slip in.
        app = get_application_model().objects.select_for_update().get(pk=application.pk)
        existing = AppAuthorization.objects.filter(application=app, user=user).first()
        if existing is not None:
            merged = rules.scope_merge(existing.scope, scope)
            if merged != existing.scope:
                existing.scope = merged
                existing.save(update_fields=["scope"])
            return existing
        count = AppAuthorization.objects.filter(application=app).count()
        if not rules.application_can_serve_user(
            is_approved=app.is_approved, user_is_counted=False, user_count=count
        ):
            raise ApplicationUserLimitReached(rules.application_user_limit())
        return AppAuthorization.objects.create(application=app, user=user, scope=rules.scope_merge("", scope))


def authorization_revoke(*, user, application) -> None:
    """Withdraw `user`'s consent: delete their codes and tokens for the app, and the consent record."""
    with transaction.atomic():
        # Codes first: an exchange racing with us either committed its token (deleted below) or finds
        # its code gone and mints nothing.
        get_grant_model().objects.filter(user=user, application=application).delete()
        get_refresh_token_model().objects.filter(user=user, application=application).delete()
        get_access_token_model().objects.filter(user=user, application=application).delete()
        AppAuthorization.objects.filter(user=user, application=application).delete()


def authorization_code_record_use(*, code: str, application, access_token) -> None:
    """Remember that `code` was exchanged for `access_token` (only its checksum is stored)."""
    refresh = get_refresh_token_model().objects.filter(access_token=access_token).only("token_family").first()
    AuthorizationCodeUse.objects.create(
        code_checksum=_code_checksum(code),
        application=application,
        access_token=access_token,
        token_family=refresh.token_family if refresh is not None else None,
    )


def authorization_code_replay_revoke(*, code: str, application) -> bool:
    """RFC 6749 §4.1.2: a reused code revokes the tokens it minted. True when `code` had been used."""
    use = (
        AuthorizationCodeUse.objects.select_related("access_token")
        .filter(code_checksum=_code_checksum(code), application=application)
        .first()
    )
    if use is None:
        return False
    if use.token_family is not None:
        # Every refresh token of the family and the access tokens they minted.
        get_refresh_token_model().revoke_family(use.token_family)
    if use.access_token is not None:
        # Also revokes the refresh token bound to it (DOT's single revoke path).
        revoke_access_token(use.access_token)
    return True


# --- Failed-credential throttling (docs/security.md, issue 14 findings 1 and 7) -----------------------


def login_failure_record(*, username: str | None, address: str | None) -> int:
    """Count a wrong password; the seconds the account or address is now locked for (0: not locked)."""
    return max(
        throttle.failure_record(rules.LOGIN_ACCOUNT_LIMIT, rules.login_account_key(username)),
        throttle.failure_record(rules.LOGIN_ADDRESS_LIMIT, address),
    )


def login_success_record(*, username: str | None) -> None:
    throttle.failures_clear(rules.LOGIN_ACCOUNT_LIMIT, rules.login_account_key(username))


def client_auth_failure_record(*, client_id: str | None, address: str | None) -> int:
    return max(
        throttle.failure_record(rules.CLIENT_ID_LIMIT, client_id),
        throttle.failure_record(rules.CLIENT_ADDRESS_LIMIT, address),
    )


def client_auth_success_record(*, client_id: str | None) -> None:
    throttle.failures_clear(rules.CLIENT_ID_LIMIT, client_id)


def application_secret_upgrade(*, application, secret: str) -> bool:
    """Re-hash a client secret that was just verified under an older hasher (DOT's default, PBKDF2) with
    the fast keyed hash (apps.oauth.hashers). True when it was upgraded."""
    stored = application.client_secret
    if not secret or not rules.client_secret_needs_upgrade(stored):
        return False
    if not check_password(secret, stored):  # the presented secret, not another one that was checked
        return False
    hashed = make_password(secret, hasher=str(settings.OAUTH2_PROVIDER["CLIENT_SECRET_HASHER"]))
    # A conditional UPDATE: a secret reset in the meantime is never overwritten by the old one.
    updated = get_application_model().objects.filter(pk=application.pk, client_secret=stored).update(
        client_secret=hashed
    )
    if updated:
        application.client_secret = hashed
    return bool(updated)
