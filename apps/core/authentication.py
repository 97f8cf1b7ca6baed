"""OAuth bearer-token authentication for the REST API (DECISIONS.md: Requests).

The token comes from `Authorization: Bearer <token>` or the `access_token` query parameter. No token,
an unknown, expired or revoked token, or a suspended user: 401. Never a session cookie.
"""
from django.utils import timezone
from oauth2_provider.models import get_access_token_model
from rest_framework.authentication import BaseAuthentication

from apps.core.exceptions import NotAuthenticated


def token_from_request(request) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header:
        scheme, _, value = header.partition(" ")
        # spec §5 step 4: the prefix `Bearer` is required in the header.
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
        if not raw:
            raise NotAuthenticated()
        AccessToken = get_access_token_model()
        token = (
            AccessToken.objects.select_related("user", "application")
            .filter(token=raw)
            .first()
        )
        if token is None or token.expires <= timezone.now():
            raise NotAuthenticated()
        if token.user_id is not None and not token.user.is_active:
            raise NotAuthenticated("Unauthorized")
        # An app's read-only token has no user (DECISIONS.md: OAuth); views opt in to it.
        user = token.user if token.user_id is not None else None
        return (user, token)

    def authenticate_header(self, request):
        return "Bearer"
