"""CORS for registered applications only (spec §1, docs/decisions.md: JSON-P and CORS).

django-cors-headers asks `check_request_enabled` whether to echo the request's Origin. We answer yes when
the Origin is the origin of some application's application URL or of one of its redirect URIs. The
method/header lists and "no credentials" are plain settings (config/settings/base.py: CORS_*).
"""
import hashlib
import logging
import re
from urllib.parse import urlsplit

from corsheaders.conf import conf
from corsheaders.signals import check_request_enabled
from django.core.cache import cache
from django.db.models import Q
from django.dispatch import receiver
from oauth2_provider.models import get_application_model

log = logging.getLogger(__name__)

# A new application's origin starts working within this many seconds; a removed one stops as quickly.
ORIGIN_CACHE_SECONDS = 60
_DEFAULT_PORTS = {"http": 80, "https": 443}


@receiver(check_request_enabled)
def allow_registered_app_origins(sender, request, **kwargs) -> bool:
    # corsheaders enables CORS on any path a receiver approves, so the excluded paths are refused here
    # too: the authorization endpoints under /login/ never send CORS headers.
    if not re.match(conf.CORS_URLS_REGEX, request.path_info):
        return False
    origin = request.headers.get("Origin", "")
    return origin_is_registered(origin)


def origin_is_registered(origin: str) -> bool:
    normalized = origin_of(origin)
    # A browser's Origin is a bare scheme://host[:port]; anything else is not worth a query.
    if normalized is None or origin.rstrip("/").lower() != normalized:
        return False
    key = "cors-origin:" + hashlib.sha256(normalized.encode()).hexdigest()
    try:
        registered = cache.get(key)
    except Exception as exc:  # a cache outage costs a query per request, never the request
        log.warning("CORS origin cache unavailable: %s", exc)
        return _origin_registered_in_db(normalized)
    if registered is None:
        registered = _origin_registered_in_db(normalized)
        cache.set(key, registered, ORIGIN_CACHE_SECONDS)
    return registered


def _origin_registered_in_db(origin: str) -> bool:
    # One query narrows to applications mentioning the origin; the exact origin comparison is done here,
    # since "https://app.example.com" is also a prefix of "https://app.example.com.evil.test".
    Application = get_application_model()
    rows = Application.objects.filter(
        Q(application_url__icontains=origin) | Q(redirect_uris__icontains=origin)
    ).values_list("application_url", "redirect_uris")
    return any(
        origin_of(url) == origin for application_url, redirect_uris in rows
        for url in [application_url, *redirect_uris.split()]
    )


def origin_of(url: str) -> str | None:
    """`scheme://host[:port]` of a web URL, lower-cased and without a default port; None if not one."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        host = f"{host}:{port}"
    return f"{scheme}://{host}"
