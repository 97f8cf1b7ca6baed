"""The API's authentication class (settings: REST_FRAMEWORK's DEFAULT_AUTHENTICATION_CLASSES).

No token: anonymous (the permission check answers 401). An unknown, expired or revoked token, or a
suspended user's: 401. A known token also keeps the user's `last_active` fresh. The rate limit is counted
after authentication by the base API view (apps.core.pipeline.views.ApiView), not here.
"""
import logging
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.utils import timezone
from rest_framework.exceptions import AuthenticationFailed

from apps.core.pipeline.authentication import BearerAuthentication, token_from_request
from apps.oauth import fastpath
from apps.oauth.selectors import access_token_get_active, token_cache_drop
from apps.oauth.usage import access_token_use_note

log = logging.getLogger(__name__)

LAST_ACTIVE_RESOLUTION = timedelta(minutes=5)


class BearerTokenAuthentication(BearerAuthentication):
    def authenticate(self, request):
        raw = token_from_request(request._request)
        if raw is None:
            return None  # anonymous; IsTokenUser answers 401
        # DOT's indexed checksum lookup; expired tokens and suspended users' tokens count as unknown. A GET
        # reads the token's cached row in one round trip with the rate-limit count and the view's cache
        # entries (apps.oauth.fastpath); the row is checked below the same way however it was read.
        token = access_token_get_active(
            token=raw, row=fastpath.prefetch(request, raw), with_token=lambda: _read_with_token(request)
        )
        if token is None:
            # DRF's own exception, so DRF marks the request unauthenticated and sends WWW-Authenticate.
            raise AuthenticationFailed("Unauthorized")
        stamped = access_token_use_note(access_token=token)
        if token.user_id is None:
            # An app's read-only token has no user (docs/decisions.md: OAuth); views opt in with IsAppToken.
            if stamped:
                token_cache_drop(raw)
            return (None, token)
        if _note_activity(token.user) or stamped:
            # The cached row holds the previous stamps: read afresh, so the next requests see them.
            token_cache_drop(raw)
        return (token.user, token)


def _read_with_token(request):
    """The view's statement to read with the token's row (ApiView.read_with_token), kept on the view."""
    if request.method != "GET":
        return None
    context = getattr(request, "parser_context", None) or {}
    view = context.get("view")
    read_with_token = getattr(view, "read_with_token", None)
    if view is None or read_with_token is None:
        return None
    view.with_token = read_with_token(request, **context.get("kwargs", {}))
    return view.with_token


def _note_activity(user) -> bool:
    """Keep `last_active` (spec §2 User) fresh to 5 minutes without writing on every request.

    The loaded value answers most requests for free; when it is stale, cache.add() lets exactly one of
    the user's concurrent requests write, with a single UPDATE that skips save() and its signals.
    True when it wrote.
    """
    now = timezone.now()
    if user.last_active is not None and now - user.last_active < LAST_ACTIVE_RESOLUTION:
        return False
    try:
        first = cache.add(f"last-active:{user.pk}", 1, timeout=int(LAST_ACTIVE_RESOLUTION.total_seconds()))
    except Exception as exc:  # the cache is an optimisation here; never fail a request over it
        log.warning("Cannot gate last_active update in the cache: %s", exc)
        return False
    if first:
        get_user_model().objects.filter(pk=user.pk).update(last_active=now)
        user.last_active = now
    return bool(first)
