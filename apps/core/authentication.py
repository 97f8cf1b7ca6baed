"""OAuth bearer-token authentication for the REST API (DECISIONS.md: Requests).

The token comes from `Authorization: Bearer <token>` or the `access_token` query parameter. No token,
an unknown, expired or revoked token, or a suspended user: 401. Never a session cookie.

A successful authentication also counts the request against the rate limit (spec §8) and notes the
user's activity; both happen here because DRF checks permissions before throttles, and every response
after authentication, a 403 included, must report the rate-limit headers (DECISIONS.md: Rate limit).
"""
import logging
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.utils import timezone
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed

from apps.core.ratelimit import rate_limit_hit, rate_limit_key
from apps.oauth.selectors import access_token_get_active

log = logging.getLogger(__name__)

LAST_ACTIVE_RESOLUTION = timedelta(minutes=5)


def token_from_request(request) -> str | None:
    """The raw token; None when the request carries none, "" when it carries an unusable one."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header:
        scheme, _, value = header.partition(" ")
        # spec §5 step 4: the prefix `Bearer` is required in the header (Basic, Token … are refused).
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
        return ""
    value = request.GET.get("access_token")
    if value is not None:
        return value.strip()
    return None


class BearerTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        raw = token_from_request(request._request)
        if raw is None:
            return None  # anonymous; IsTokenUser answers 401
        # DOT's indexed checksum lookup; expired tokens and suspended users' tokens count as unknown.
        token = access_token_get_active(token=raw)
        if token is None:
            # DRF's own exception, so DRF marks the request unauthenticated and sends WWW-Authenticate.
            raise AuthenticationFailed("Unauthorized")
        # The Django request outlives the DRF one: ApiResponseMiddleware reads this for the headers.
        request._request.rate_limit = rate_limit_hit(
            rate_limit_key(application_id=token.application_id, user_id=token.user_id)
        )
        if token.user_id is None:
            # An app's read-only token has no user (DECISIONS.md: OAuth); views opt in with IsAppToken.
            return (None, token)
        _note_activity(token.user)
        return (token.user, token)

    def authenticate_header(self, request):
        return "Bearer"


def _note_activity(user) -> None:
    """Keep `last_active` (spec §2 User) fresh to 5 minutes without writing on every request.

    The loaded value answers most requests for free; when it is stale, cache.add() lets exactly one of
    the user's concurrent requests write, with a single UPDATE that skips save() and its signals.
    """
    now = timezone.now()
    if user.last_active is not None and now - user.last_active < LAST_ACTIVE_RESOLUTION:
        return
    try:
        first = cache.add(f"last-active:{user.pk}", 1, timeout=int(LAST_ACTIVE_RESOLUTION.total_seconds()))
    except Exception as exc:  # the cache is an optimisation here; never fail a request over it
        log.warning("Cannot gate last_active update in the cache: %s", exc)
        return
    if first:
        get_user_model().objects.filter(pk=user.pk).update(last_active=now)
        user.last_active = now
