"""How the API authenticates (spec §5 step 4, docs/decisions.md: Requests): a Bearer token, never a cookie.

The token comes from `Authorization: Bearer <token>` or the `access_token` query parameter. Looking it up
is the OAuth provider's business (apps.oauth.authentication subclasses BearerAuthentication); the shape of
the request, the 401's `WWW-Authenticate: Bearer` and the OpenAPI security scheme are conventions, here.
"""
from rest_framework.authentication import BaseAuthentication


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


class BearerAuthentication(BaseAuthentication):
    """Base of the API's authentication class: answers `(user or None, token)` where the token has
    `application_id` and `user_id` (what the rate limit is keyed by); subclasses look the token up."""

    def authenticate_header(self, request):
        return "Bearer"
