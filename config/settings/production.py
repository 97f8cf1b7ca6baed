"""Production: everything from the environment; fail loudly when a required value is missing."""
from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403
from .base import (
    DATABASE_URL,
    PAYMENT_ALLOW_TEST_BACKEND_ENV,
    REDIS_URL,
    SECRET_KEY,
    SECURE_COOKIES_ENV,
    SECURE_SSL_REDIRECT_ENV,
)

if not DATABASE_URL:
    raise ImproperlyConfigured("DATABASE_URL is required in production")
if not REDIS_URL:
    raise ImproperlyConfigured("REDIS_URL is required in production")
if SECRET_KEY.startswith("dev-insecure"):
    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set in production")

DEBUG = False
# The test payment backend charges nobody: refused unless PAYMENT_ALLOW_TEST_BACKEND=true (apps.orders.checks).
PAYMENT_ALLOW_TEST_BACKEND = PAYMENT_ALLOW_TEST_BACKEND_ENV
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = SECURE_SSL_REDIRECT_ENV
SESSION_COOKIE_SECURE = SECURE_COOKIES_ENV
CSRF_COOKIE_SECURE = SECURE_COOKIES_ENV
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 30
# Every subdomain of the site's domain is HTTPS-only too (docs/security.md: check --deploy).
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_CONTENT_TYPE_NOSNIFF = True
STORAGES = {
    "default": {"BACKEND": "storages.backends.s3.S3Storage"},
    # WhiteNoise's manifest storage: hashed names served with a year's `immutable` cache, gzip and Brotli.
    "staticfiles": {"BACKEND": "apps.core.site.staticfiles.ProductionStaticFilesStorage"},
}
# Persistent connections: these are per-database keys (top-level names are never read by Django).
DATABASES["default"]["CONN_MAX_AGE"] = 60  # noqa: F405
# No `SELECT 1` before each request's first query (issue 17: 3.5 % of a detail request): the backend
# (apps.core.db.postgresql) replaces a connection the server dropped when its first statement finds it dead.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = False  # noqa: F405
# An unreachable (not refusing) database host fails a request in seconds, as a 503, instead of hanging
# the worker until gunicorn kills it; a `connect_timeout` in DATABASE_URL wins.
DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)  # noqa: F405
