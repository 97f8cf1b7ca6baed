"""Quick start (`make run`): embedded defaults so the service runs with only Python present."""
from .base import *  # noqa: F401,F403
from .base import (
    CELERY_BROKER_URL,
    DATABASE_URL,
    DATABASES,
    REDIS_URL,
    RUN_DIR,
    S3_ENDPOINT_URL,
    STORAGES,
    env,
)

# DEBUG stays as base.py reads it (DJANGO_DEBUG, off by default): the quick start shows the site's own 404
# and 500 pages, never Django's debug page listing every URL pattern (issue 23).
RUN_DIR.mkdir(parents=True, exist_ok=True)
# Static files as production serves them (issue 23): `make run` collects them into .run/static, WhiteNoise
# serves them compressed (gzip, brotli) under hashed names with a year-long, immutable Cache-Control.
# Before a collection (a test, `runserver` by hand) plain names, served by WhiteNoise from the finders.
STATIC_ROOT = RUN_DIR / "static"
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "apps.core.site.staticfiles.CollectedOrFoundStaticFilesStorage"}}
WHITENOISE_USE_FINDERS = not (STATIC_ROOT / "staticfiles.json").exists()
if not DATABASE_URL:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": RUN_DIR / "thingyard.sqlite3"}}
# docs/decisions.md (Quick start): the web process and the worker write to SQLite at the same moment, and
# clients of the original API do not retry a 503 `database is locked`. WAL lets readers and the one
# writer work at once; a transaction takes the write lock when it begins (IMMEDIATE), so it waits for
# the other writer (busy timeout) instead of failing when it upgrades from reading to writing, which
# SQLite refuses at once, whatever the timeout; the busy timeout bounds that wait.
SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
if not S3_ENDPOINT_URL:
    AWS_S3_ENDPOINT_URL = "http://127.0.0.1:9000"  # moto's S3 server, started by `make run`
ALLOW_PRIVATE_WEBHOOK_URLS = True
SECURE_SSL_REDIRECT = False
if CELERY_BROKER_URL == "memory://" and not REDIS_URL:
    # docs/decisions.md (Quick start: supervised, a broker in SQLite): kombu's SQLAlchemy transport on a
    # SQLite file of its own, shared by the web process, the worker and beat without any server. Every
    # write is a SQLite transaction (a consumer takes a message under BEGIN IMMEDIATE), so concurrent
    # producers and the consumer never see half a message, as kombu's file broker did (JSONDecodeError).
    # `timeout` is SQLite's busy timeout: a writer waits for the other instead of failing. The transport
    # is kombu's, safe for several processes' first use at once (apps/core/broker/quickbroker.py); the URL is
    # SQLAlchemy's (kombu refuses an import path in a URL's scheme, so the transport is named apart).
    CELERY_BROKER_TRANSPORT = "apps.core.broker.quickbroker:Transport"
    CELERY_BROKER_URL = f"sqlite:///{RUN_DIR / 'broker.sqlite3'}"
    CELERY_BROKER_TRANSPORT_OPTIONS = {"connect_args": {"timeout": 30}}
# Outgoing mail (password resets, address confirmations) as files under .run/mail/ unless EMAIL_URL names
# a real server: open the newest file to follow a link (README, quick start).
if not env.str("EMAIL_URL", default=""):
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(RUN_DIR / "mail")
