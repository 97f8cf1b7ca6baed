"""Pure predicates of the OAuth provider: grant types per app type, the unapproved-app user limit, the
limits of failed passwords and client secrets, and the consent pages' wording of scopes and hosts."""
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.hashers import identify_hasher

from apps.core.security.throttle import FailureLimit, wait_message
from apps.oauth.device import rules as device_rules

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
    if device_rules.application_may_use_device_grant(app_type=app_type):
        grants.add(device_rules.GRANT_DEVICE_CODE)  # docs/decisions.md: Device sign-in
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
    """What a token of this scope list lets an app do, in plain words (settings: OAUTH2_PROVIDER's
    SCOPES), reading first: exactly what the API enforces (docs/decisions.md: Scopes, round 3).

    Every token reads; `write` (or no scope at all: the default grant of both) also changes. Other names
    are listed as they are described.
    """
    provider: dict = settings.OAUTH2_PROVIDER
    described: dict = provider.get("SCOPES", {})
    names = set(scope.split()) or set(provider.get("DEFAULT_SCOPES", []))
    names.add("read")
    ordered = ["read", "write"] + sorted(names - {"read", "write"})
    return [described.get(name, name) for name in ordered if name in names]


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


# --- Failed-credential throttling (docs/security.md, issue 14 findings 1 and 7) -------------------------
# The numbers: a person who mistypes a password a few times is not locked; a guesser gets 5 tries per
# account (30 per address, which may be a shared NAT) every 15 minutes. A client secret is pasted by a
# program, not typed: 10 failures per client id (30 per address) lock for 5 minutes.

LOGIN_ACCOUNT_LIMIT = FailureLimit(scope="login:account", limit=5, window_seconds=900, lock_seconds=900)
LOGIN_ADDRESS_LIMIT = FailureLimit(scope="login:address", limit=30, window_seconds=900, lock_seconds=900)
CLIENT_ID_LIMIT = FailureLimit(scope="client:id", limit=10, window_seconds=300, lock_seconds=300)
CLIENT_ADDRESS_LIMIT = FailureLimit(scope="client:address", limit=30, window_seconds=300, lock_seconds=300)


def login_account_key(username: str | None) -> str:
    """Usernames are matched case-insensitively at login, so `Alice` and `alice` share one count."""
    return (username or "").strip().lower()


def login_throttled_message(seconds: int) -> str:
    return (
        "Too many failed log-in attempts for this account or from your network. "
        f"For your security, logging in is paused; try again in {wait_message(seconds)}."
    )


def client_auth_throttled_message(seconds: int) -> str:
    return f"Too many failed client authentications; try again in {wait_message(seconds)}."


# --- Client secrets (docs/security.md, issue 14 finding 1) ------------------------------------------------
CLIENT_SECRET_ALGORITHM = "thingyard_client_hmac_sha256"  # apps.oauth.hashers.ClientSecretHasher


def client_secret_needs_upgrade(stored: str) -> bool:
    """True for a client secret hashed by another password hasher (DOT's default was PBKDF2): verify it
    the slow way once, then store the fast keyed hash. A plain stored secret (hash_client_secret off)
    is left alone."""
    try:
        hasher = identify_hasher(stored)
    except ValueError:
        return False
    return hasher.algorithm != CLIENT_SECRET_ALGORITHM
