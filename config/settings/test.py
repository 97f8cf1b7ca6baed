"""Test settings: the real PostgreSQL and Redis (DATABASE_URL / REDIS_URL, default the local servers)."""
import os
from urllib.parse import urlsplit, urlunsplit

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403
from .base import (
    DATABASE_URL,
    POSTGRESQL_ENGINE,
    REDIS_URL,
    THINGYARD_RELEASE,
    cache_aliases,
    cache_key_prefix,
    env,
)

DATABASES = {"default": env.db_url_config(DATABASE_URL or "postgres://postgres@127.0.0.1:5432/thingyard")}
DATABASES["default"]["ENGINE"] = POSTGRESQL_ENGINE
# Test databases are thrown away: a commit (a transactional test's, a flush's, a live server's) need not
# wait for its WAL to reach the disk (issue 23: CI in half the time). Set per connection, so the shared
# server's other databases keep the server's setting.
_options = DATABASES["default"].setdefault("OPTIONS", {})
_options["options"] = f"{_options.get('options', '')} -c synchronous_commit=off".strip()
_redis = REDIS_URL or "redis://127.0.0.1:6379/0"
# Under pytest-xdist (`make test` runs `-n 3`) each worker gets its own test database (pytest-django adds
# the `_gw0` suffix) and its own Redis database number: REDIS_URL's number plus 1 plus the worker's index
# (redis://…/12 gives gw0 13 and gw1 14), so one worker's `cache.clear()` never empties another's cache,
# rate-limit counters or Celery queues. A plain run keeps REDIS_URL's number.
_xdist_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _xdist_worker.startswith("gw") and os.environ.get("THINGYARD_XDIST_REDIS") != _xdist_worker:
    _parts = urlsplit(_redis)
    _db = int(_parts.path.strip("/") or 0) + 1 + int(_xdist_worker[2:])
    if _db > 15:
        raise ImproperlyConfigured(
            f"xdist worker {_xdist_worker} would use Redis database {_db}: Redis has 0-15 by default; "
            "give REDIS_URL a lower database number or run fewer workers"
        )
    _redis = urlunsplit(_parts._replace(path=f"/{_db}"))
    # The servers and Celery workers a test starts inherit this environment: they use the number as it is.
    os.environ["REDIS_URL"] = _redis
    os.environ["THINGYARD_XDIST_REDIS"] = _xdist_worker
REDIS_URL = _redis
CACHES = cache_aliases(
    _redis, env.str("CACHE_KEY_PREFIX", default="") or cache_key_prefix(DATABASES["default"]), THINGYARD_RELEASE
)
CACHE_KEY_PREFIX = CACHES["default"]["KEY_PREFIX"]
CELERY_BROKER_URL = _redis
# The request-path caches run as in production (issue 23): the token row cache and the fast path
# (OAUTH_TOKEN_CACHE_SECONDS), the Thing bodies, short forms and kept list/search pages
# (THING_BODY_CACHE_SECONDS), the search window (SEARCH_WINDOW_CACHE_SECONDS, its 60 s default) and the
# list totals (always on): a stale cache fails the suite. base.py's values, so the environment that sets
# production's sets these. The query-count tests that count the uncached path turn them off with the
# `caches_off` marker or fixture (conftest.py); THINGYARD_TEST_CACHES=0 turns them off for a whole run.
if not env.bool("THINGYARD_TEST_CACHES", default=True):
    OAUTH_TOKEN_CACHE_SECONDS = 0
    THING_BODY_CACHE_SECONDS = 0
# Tasks run in-process, synchronously, so a test observes their effect; they still go through Celery.
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", "apps.oauth.hashers.ClientSecretHasher"]
API_BASE_URL = AUTH_BASE_URL = SITE_URL = "http://testserver"
# RFC 9207's `iss` is the metadata's issuer, {auth_url} (base.py derives it before this override).
OAUTH2_PROVIDER = {**OAUTH2_PROVIDER, "OIDC_ISS_ENDPOINT": AUTH_BASE_URL}  # noqa: F405
ALLOW_PRIVATE_WEBHOOK_URLS = False
SECURE_SSL_REDIRECT = False
# AWS_S3_ENDPOINT_URL is set by the test session once moto's server is listening (tests/conftest.py).
# No collectstatic in tests: WhiteNoise looks files up through the finders on demand.
WHITENOISE_AUTOREFRESH = True
