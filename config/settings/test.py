"""Test settings: the real PostgreSQL and Redis (DATABASE_URL / REDIS_URL, default the local servers)."""
from .base import *  # noqa: F401,F403
from .base import CACHE_REDIS_OPTIONS, DATABASE_URL, POSTGRESQL_ENGINE, REDIS_URL, env

DATABASES = {"default": env.db_url_config(DATABASE_URL or "postgres://postgres@127.0.0.1:5432/thingyard")}
DATABASES["default"]["ENGINE"] = POSTGRESQL_ENGINE
_redis = REDIS_URL or "redis://127.0.0.1:6379/0"
REDIS_URL = _redis
CACHES = {
    "default": {
        "BACKEND": "apps.core.cache.FailOpenRedisCache",
        "LOCATION": _redis,
        "OPTIONS": CACHE_REDIS_OPTIONS,
    }
}
CELERY_BROKER_URL = _redis
# The request-path caches of issue 17 are off by default in tests, so the query-count tests keep counting
# every statement a request can send (a cached token or Thing body would hide the statements it saves);
# their own tests, and THINGYARD_TEST_CACHES=1 for a whole run, turn them on.
_caches_on = env.bool("THINGYARD_TEST_CACHES", default=False)
OAUTH_TOKEN_CACHE_SECONDS = 5 if _caches_on else 0
THING_BODY_CACHE_SECONDS = 600 if _caches_on else 0
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
