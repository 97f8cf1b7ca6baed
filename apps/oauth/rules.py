"""Pure predicates of the OAuth provider: grant types per app type and the unapproved-app user limit."""
from urllib.parse import urlsplit

from django.conf import settings

# DOT's grant type names (AbstractApplication.GRANT_*), spelled out so this module imports no models.
GRANT_AUTHORIZATION_CODE = "authorization-code"
GRANT_IMPLICIT = "implicit"

# spec §5: `response_type=token` is for client-side apps; docs/decisions.md: Web and Thing apps only.
IMPLICIT_APP_TYPES = frozenset({"web", "thing"})
# RFC 9700 §2.1.2: a token delivered in a URL fragment can leak (history, referrers, extensions), so the
# implicit grant's tokens live an hour and come without a refresh token; code-flow tokens live 30 days.
IMPLICIT_ACCESS_TOKEN_SECONDS = 3600


def application_grant_types(*, app_type: str) -> set[str]:
    """DOT grant types an app of `app_type` may use (refresh_token rides on authorization-code)."""
    grants = {GRANT_AUTHORIZATION_CODE}
    if app_type in IMPLICIT_APP_TYPES:
        grants.add(GRANT_IMPLICIT)
    return grants


def application_user_limit() -> int:
    return settings.UNAPPROVED_APP_USER_LIMIT


def application_can_serve_user(*, is_approved: bool, user_is_counted: bool, user_count: int) -> bool:
    """spec §5/§8: an unapproved app serves at most N distinct users; counted users keep working."""
    return is_approved or user_is_counted or user_count < application_user_limit()


def application_can_issue_token(*, is_approved: bool, user_is_counted: bool) -> bool:
    """A token is only ever minted for a user who consented and was counted (or for an approved app)."""
    return is_approved or user_is_counted


def scope_merge(granted: str, more: str) -> str:
    """The union of two space-separated scope lists, in a stable order."""
    return " ".join(sorted(set(granted.split()) | set(more.split())))


def scope_descriptions(scope: str) -> list[str]:
    """What a scope list lets an app do, in plain words (settings: OAUTH2_PROVIDER's SCOPES).

    An empty list is the default grant (docs/decisions.md: OAuth): every app gets DEFAULT_SCOPES.
    """
    provider: dict = settings.OAUTH2_PROVIDER
    names = scope.split() or list(provider.get("DEFAULT_SCOPES", []))
    described: dict = provider.get("SCOPES", {})
    return [described.get(name, name) for name in sorted(set(names))]


def redirect_host(uri: str) -> str:
    """The host (and port) a redirect URI sends the browser to, as the consent page names it."""
    try:
        parts = urlsplit(uri)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return ""
    if not host:
        return ""
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}" if port else shown
