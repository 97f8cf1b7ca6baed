"""Pure rules of the developer portal: what an application registration needs (spec §5), review states."""
from urllib.parse import urlsplit

from django.conf import settings
from oauth2_provider.models import get_application_model

from apps.core.security import netcheck

Application = get_application_model()

URL_SCHEMES = ("http", "https")
# spec §5: "Web and Thing apps must give the application URL".
APP_TYPES_REQUIRING_APPLICATION_URL = frozenset({Application.AppType.WEB, Application.AppType.THING})
# Public clients cannot keep a secret, so they must use PKCE; only installed apps may be public.
APP_TYPES_ALLOWING_PUBLIC_CLIENT = frozenset({Application.AppType.MOBILE, Application.AppType.DESKTOP})
# docs/decisions.md (OAuth): the app's own read-only token may only GET the app's orders.
READONLY_TOKEN_SCOPE = "orders:read"
# docs/decisions.md (The developer portal): an app registers up to 10 callback URLs, one per line.
MAX_CALLBACK_URLS = 10
MAX_CALLBACK_URL_LENGTH = 500
# The app's logo (docs/decisions.md: The developer portal): what the consent page can show safely.
LOGO_FORMATS = {"PNG": ("png", "image/png"), "JPEG": ("jpg", "image/jpeg"), "WEBP": ("webp", "image/webp")}
LOGO_MAX_BYTES = 512 * 1024
LOGO_MAX_SIDE = 1024
# The delivery log's status filter: "pending" covers a delivery being sent right now too.
DELIVERY_STATUS_FILTERS = [
    ("pending", "Pending"),
    ("succeeded", "Delivered"),
    ("failed", "Failed"),
    ("cancelled", "Cancelled"),
]


def application_url_required(app_type: str) -> bool:
    return app_type in APP_TYPES_REQUIRING_APPLICATION_URL


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in URL_SCHEMES and bool(parts.hostname)


def application_registration_blockers(
    *,
    app_type: str,
    info_url: str,
    application_url: str,
    callback_url: str,
    client_type: str = Application.CLIENT_CONFIDENTIAL,
) -> dict[str, list[str]]:
    """Why these registration fields cannot be saved, keyed by field name; empty when they can."""
    errors: dict[str, list[str]] = {}

    def add(field, message):
        errors.setdefault(field, []).append(message)

    if app_type not in Application.AppType.values:
        add("app_type", "Choose Web, Thing, Mobile or Desktop.")
    if not info_url:
        add("info_url", "Give the information URL.")
    elif not _is_http_url(info_url):
        add("info_url", "The information URL must be an http:// or https:// URL.")
    if application_url_required(app_type) and not application_url:
        add("application_url", "Web and Thing apps must give the application URL.")
    elif application_url and not _is_http_url(application_url):
        add("application_url", "The application URL must be an http:// or https:// URL.")
    for message in callback_urls_blockers(callback_url):
        add("callback_url", message)
    if client_type not in (Application.CLIENT_CONFIDENTIAL, Application.CLIENT_PUBLIC):
        add("client_type", "Choose confidential or public.")
    elif client_type == Application.CLIENT_PUBLIC and app_type not in APP_TYPES_ALLOWING_PUBLIC_CLIENT:
        add("client_type", "Only Mobile and Desktop apps may be public clients (they use PKCE).")
    return errors


def callback_urls_split(text: str) -> list[str]:
    """The callback URLs of a form's text (one per line, or space-separated as DOT stores them), in
    order, without blanks or repeats."""
    seen: list[str] = []
    for url in (text or "").split():
        if url not in seen:
            seen.append(url)
    return seen


def callback_urls_blockers(text: str) -> list[str]:
    """Why these callback URLs (DOT's `redirect_uris`) cannot be saved; each bad one is named."""
    urls = callback_urls_split(text)
    if not urls:
        return ["Give at least one callback URL."]
    if len(urls) > MAX_CALLBACK_URLS:
        return [f"Give at most {MAX_CALLBACK_URLS} callback URLs."]
    reasons = []
    for url in urls:
        shown = url if len(url) <= 80 else url[:77] + "…"
        if len(url) > MAX_CALLBACK_URL_LENGTH:
            reasons.append(f"{shown}: a callback URL has at most {MAX_CALLBACK_URL_LENGTH} characters.")
        elif not _is_http_url(url):
            reasons.append(f"{shown}: a callback URL must be an http:// or https:// URL.")
        elif "#" in url:
            reasons.append(f"{shown}: a callback URL must not contain a fragment (#…).")
    return reasons


def webhook_url_blockers(url: str) -> list[str]:
    """Why `url` cannot receive webhooks (docs/decisions.md: non-public addresses refused unless a setting allows)."""
    if not url:
        return []
    return netcheck.url_blockers(url, allow_private=settings.ALLOW_PRIVATE_WEBHOOK_URLS)


def application_is_in_review(application) -> bool:
    """Pending and submitted by its owner: the moderators' queue."""
    return application.approval_state == Application.Approval.PENDING and _submitted(application)


def _submitted(application) -> bool:
    # The reverse one-to-one raises RelatedObjectDoesNotExist (an AttributeError) when absent.
    return hasattr(application, "review_request")


def application_submit_blockers(application) -> list[str]:
    """Why the owner cannot ask moderators to publish the app now (spec §3: private → published)."""
    reasons = []
    if application.approval_state == Application.Approval.APPROVED:
        reasons.append("The application is already approved.")
    missing = application_registration_blockers(
        app_type=application.app_type,
        info_url=application.info_url,
        application_url=application.application_url,
        callback_url=application.redirect_uris,
        client_type=application.client_type,
    )
    for messages in missing.values():
        reasons.extend(messages)
    if not application.name.strip():
        reasons.append("Give the application a name.")
    if not application.description.strip():
        reasons.append("Give the application a description.")
    return reasons


def application_user_limit(application) -> int | None:
    """spec §8: an unapproved application serves at most N users; an approved one has no limit."""
    if application.approval_state == Application.Approval.APPROVED:
        return None
    return settings.UNAPPROVED_APP_USER_LIMIT


def logo_blockers(*, size: int, image_format: str | None, width: int, height: int) -> list[str]:
    """Why an uploaded file cannot be the app's logo; empty when it can."""
    if size > LOGO_MAX_BYTES:
        return [f"The logo is {size // 1024} KB; the limit is {LOGO_MAX_BYTES // 1024} KB."]
    if image_format not in LOGO_FORMATS:
        return ["The logo must be a PNG, JPEG or WebP image."]
    if width > LOGO_MAX_SIDE or height > LOGO_MAX_SIDE:
        return [f"The logo is {width} × {height} pixels; the limit is {LOGO_MAX_SIDE} × {LOGO_MAX_SIDE}."]
    if width < 16 or height < 16:
        return ["The logo must be at least 16 × 16 pixels."]
    return []
