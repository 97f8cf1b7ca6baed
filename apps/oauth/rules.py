"""Pure predicates of the OAuth provider: grant types per app type and the unapproved-app user limit."""
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
