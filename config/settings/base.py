"""Settings shared by every environment.

The environment is read here and only here (django-environ); local.py, test.py and production.py
choose defaults for values the environment leaves unset, never read it themselves.
"""
from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from celery.schedules import crontab

from config.release import release_fingerprint

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

# --- values read from the environment -------------------------------------------------------------
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="dev-insecure-change-me-" + "x" * 32)
# The key of client secrets' HMAC (apps.oauth.hashers); empty: derived from SECRET_KEY. Changing it (or,
# when empty, SECRET_KEY) invalidates every stored client secret.
CLIENT_SECRET_HMAC_KEY = env.str("CLIENT_SECRET_HMAC_KEY", default="")
# Failed-credential throttling (apps.core.security.throttle) counts per address: behind a reverse proxy that
# appends the client's address to X-Forwarded-For, set this so the proxy's own address is not counted.
THROTTLE_TRUST_X_FORWARDED_FOR = env.bool("THROTTLE_TRUST_X_FORWARDED_FOR", default=False)
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
DATABASE_URL = env.str("DATABASE_URL", default="")
REDIS_URL = env.str("REDIS_URL", default="")
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
# Public addresses (spec: {base_url}, {auth_url}, {site_url}); one host serves all three by default.
API_BASE_URL = env.str("THINGYARD_API_URL", default="http://127.0.0.1:8000").rstrip("/")
AUTH_BASE_URL = env.str("THINGYARD_AUTH_URL", default=API_BASE_URL).rstrip("/")
SITE_URL = env.str("THINGYARD_SITE_URL", default=API_BASE_URL).rstrip("/")
# S3-compatible object store (MinIO, AWS S3, moto in development and tests).
S3_ENDPOINT_URL = env.str("S3_ENDPOINT_URL", default="")
S3_PUBLIC_URL = env.str("S3_PUBLIC_URL", default="")  # address browsers use, when it differs
S3_BUCKET = env.str("S3_BUCKET", default="thingyard")
S3_REGION = env.str("S3_REGION", default="us-east-1")
S3_ACCESS_KEY_ID = env.str("S3_ACCESS_KEY_ID", default="thingyard")
S3_SECRET_ACCESS_KEY = env.str("S3_SECRET_ACCESS_KEY", default="thingyard-secret")
S3_SIGNATURE_MODE = env.str("S3_SIGNATURE_MODE", default="v2")  # v2 (compat) or v4
# spec §8 / docs/decisions.md: the policy bounds an upload to 1..262144000 bytes and expires after an hour.
UPLOAD_MAX_BYTES = env.int("UPLOAD_MAX_BYTES", default=262_144_000)
UPLOAD_POLICY_SECONDS = env.int("UPLOAD_POLICY_SECONDS", default=3600)
# spec §3: without a finalize call the service checks the upload itself after this delay.
UPLOAD_VERIFY_DELAY_SECONDS = env.int("UPLOAD_VERIFY_DELAY_SECONDS", default=300)
# Processing limits against hostile input (decompression bombs, absurd meshes).
UPLOADS_IMAGE_MAX_PIXELS = env.int("UPLOADS_IMAGE_MAX_PIXELS", default=50_000_000)
UPLOADS_STL_MAX_TRIANGLES = env.int("UPLOADS_STL_MAX_TRIANGLES", default=5_000_000)
# Vertices a 3MF or OBJ may declare (docs/uploads.md); their triangles count against the limit above.
UPLOADS_MODEL_MAX_VERTICES = env.int("UPLOADS_MODEL_MAX_VERTICES", default=5_000_000)
# Worker time per file or image processing task (docs/reliability.md: finding 8). At the soft limit the
# file fails as too complex; the hard limit (soft + grace) kills a run that ignored it, and fails it too.
PROCESSING_TIME_LIMIT_SECONDS = env.float("PROCESSING_TIME_LIMIT_SECONDS", default=60.0)
PROCESSING_HARD_TIME_LIMIT_SECONDS = env.float(
    "PROCESSING_HARD_TIME_LIMIT_SECONDS", default=PROCESSING_TIME_LIMIT_SECONDS + 15
)
# Issue 23: a file or image still processing this long after it was queued shows an error and a retry.
PROCESSING_STALLED_SECONDS = env.float("PROCESSING_STALLED_SECONDS", default=180.0)
EMAIL_URL = env.str("EMAIL_URL", default="consolemail://")
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Thingyard <no-reply@thingyard.local>")
RATE_LIMIT_REQUESTS = env.int("RATE_LIMIT_REQUESTS", default=300)
RATE_LIMIT_WINDOW_SECONDS = env.int("RATE_LIMIT_WINDOW_SECONDS", default=300)
# Issue 17: an access token's row is reused this many seconds (dropped at once when the token, its user
# or its app changes: apps.oauth.signals); 0 looks every token up on every request.
OAUTH_TOKEN_CACHE_SECONDS = env.int("OAUTH_TOKEN_CACHE_SECONDS", default=5)
# Issue 17: a Thing's public body and short form kept in the cache, versioned (apps.things.bodycache);
# this long at most. 0 builds every body per request.
THING_BODY_CACHE_SECONDS = env.int("THING_BODY_CACHE_SECONDS", default=600)
UNAPPROVED_APP_USER_LIMIT = env.int("UNAPPROVED_APP_USER_LIMIT", default=10)
# Webhook and other outbound URLs resolving to private addresses are refused unless this is set.
ALLOW_PRIVATE_WEBHOOK_URLS = env.bool("ALLOW_PRIVATE_WEBHOOK_URLS", default=False)
# Orders: dotted path of the payment backend (apps.orders.payments); the default charges nobody.
PAYMENT_BACKEND = env.str("PAYMENT_BACKEND", default="apps.orders.payments.TestPaymentBackend")
# A backend that charges nobody is refused in production unless this is set (apps.orders.checks);
# development, tests and the quick start accept it.
PAYMENT_ALLOW_TEST_BACKEND_ENV = env.bool("PAYMENT_ALLOW_TEST_BACKEND", default=False)
PAYMENT_ALLOW_TEST_BACKEND = True
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
# The quick start's own state (`make run`): its SQLite database, file broker, logs.
RUN_DIR = Path(env.str("THINGYARD_RUN_DIR", default=str(BASE_DIR / ".run")))
SECURE_SSL_REDIRECT_ENV = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
# Production's session and CSRF cookies are sent over HTTPS only; false only for a plain-HTTP staging
# host (no TLS anywhere), where a browser could otherwise never sign in (README "Running in production").
SECURE_COOKIES_ENV = env.bool("DJANGO_SECURE_COOKIES", default=True)

# --- application definition ------------------------------------------------------------------------
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "corsheaders",
    "drf_spectacular",
    "storages",
    "apps.core",
    "apps.activity",
    "apps.accounts",
    "apps.oauth",
    "apps.developers",
    "apps.things",
    "apps.search",
    "apps.uploads",
    "apps.orders",
    "apps.webhooks",
    "apps.notifications",
    "apps.thingcollections",
    "apps.groups",
    "apps.makes",
    "apps.comments",
    "apps.thingapps",
    "apps.reports",
    "apps.demo",
    "oauth2_provider",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "apps.core.pipeline.middleware.RejectNulMiddleware",
    "apps.core.pipeline.middleware.OptionalTrailingSlashMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Sessions, CSRF, authentication and messages, in that order; skipped for an API call with a token
    # and no session cookie (issue 17).
    "apps.core.pipeline.middleware.PageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# The admin looks for the session, authentication and messages middleware by name; PageMiddleware runs
# all three for every admin (session-cookie) request, so its checks do not apply.
# Each other silenced id is a false alarm of `check --deploy`, with its reason in docs/security.md
# ("check --deploy"): CSRF runs inside PageMiddleware; the spec needs the implicit grant, `?access_token=`
# and http (loopback) callbacks; HSTS preload is the operator's choice; drf-spectacular's W001 is about
# operation names of the spec's two path forms, not security.
SILENCED_SYSTEM_CHECKS = [
    "admin.E408", "admin.E409", "admin.E410",
    "security.W003", "security.W021",
    "oauth2_provider.W001", "oauth2_provider.W004", "oauth2_provider.W008",
    "drf_spectacular.W001",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
APPEND_SLASH = False  # docs/decisions.md: both forms answer, never a redirect (OptionalTrailingSlashMiddleware)

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db_url_config(DATABASE_URL)} if DATABASE_URL else {}
# PostgreSQL through Django's backend plus the recovery of a dead persistent connection (apps.core.db.postgresql:
# no `SELECT 1` health check per request, issue 17).
POSTGRESQL_ENGINE = "apps.core.db.postgresql"
if DATABASES and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = POSTGRESQL_ENGINE
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Django's password hashers, then the client-secret hasher (docs/security.md: never used for passwords,
# being last; registered so DOT can identify client-secret hashes).
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
    "apps.oauth.hashers.ClientSecretHasher",
]
# Every password check goes through the failed-login throttle (docs/security.md, issue 14 finding 7).
AUTHENTICATION_BACKENDS = ["apps.oauth.auth_backends.ThrottledModelBackend"]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/account/"
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "apps.core.site.staticfiles.NodeModulesFinder",
]
# Front-end libraries from the npm registry (package.json, package-lock.json; `npm ci` fills
# node_modules): only these files are served, as /static/<prefix>/<name> (apps/core/site/staticfiles.py).
NODE_MODULES_DIR = BASE_DIR / "node_modules"
NODE_STATIC_FILES = [
    ("vendor/three", "three/build", ["three.module.min.js", "three.core.min.js"]),
    ("vendor/three/addons/controls", "three/examples/jsm/controls", ["OrbitControls.js"]),
    # Swagger UI at /docs/; the two oauth2-redirect files are also served as /docs/oauth2-redirect.html
    # (apps/core/pipeline/views.py), the callback URL Swagger's "Authorize" sends users back to.
    (
        "vendor/swagger-ui",
        "swagger-ui-dist",
        [
            "swagger-ui.css",
            # swagger-ui.css ends in a sourceMappingURL comment: the manifest storage of production
            # (collectstatic) resolves every reference a CSS file makes, so the map is collected too.
            "swagger-ui.css.map",
            "swagger-ui-bundle.js",
            "swagger-ui-standalone-preset.js",
            "favicon-32x32.png",
            "oauth2-redirect.html",
            "oauth2-redirect.js",
        ],
    ),
]
# Files browsers ask for at the site's root (/favicon.ico), served by WhiteNoise.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"

STORAGES = {
    "default": {"BACKEND": "storages.backends.s3.S3Storage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
AWS_S3_ENDPOINT_URL = S3_ENDPOINT_URL or None
AWS_STORAGE_BUCKET_NAME = S3_BUCKET
AWS_S3_REGION_NAME = S3_REGION
AWS_ACCESS_KEY_ID = S3_ACCESS_KEY_ID
AWS_SECRET_ACCESS_KEY = S3_SECRET_ACCESS_KEY
AWS_QUERYSTRING_AUTH = True
AWS_DEFAULT_ACL = None
AWS_S3_ADDRESSING_STYLE = "path"
AWS_S3_FILE_OVERWRITE = False

EMAIL_CONFIG = env.email_url_config(EMAIL_URL)
vars().update(EMAIL_CONFIG)

# Fails open (apps/core/cache/failopen.py): a Redis outage costs queries, never requests; short socket timeouts
# keep a hung Redis from holding them (docs/reliability.md).
CACHE_REDIS_OPTIONS = {"socket_connect_timeout": 0.5, "socket_timeout": 1.0}


def cache_key_prefix(database: dict) -> str:
    """Issue 24: every cache key (and rate-limit counter) carries the instance's identity, so instances
    sharing a Redis (bench servers, staging beside production) never read each other's entries. Default:
    derived from the database's host, port and name; CACHE_KEY_PREFIX overrides it."""
    import hashlib

    identity = f"{database.get('HOST', '')}:{database.get('PORT', '')}/{database.get('NAME', '')}"
    return "ty" + hashlib.sha256(identity.encode()).hexdigest()[:10]


CACHE_KEY_PREFIX = env.str("CACHE_KEY_PREFIX", default="") or cache_key_prefix(DATABASES.get("default", {}))
# The release's identity (config.release): the derived caches' keys and the Things' ETags carry it.
THINGYARD_RELEASE = env.str("THINGYARD_RELEASE", default="") or release_fingerprint(BASE_DIR)


def cache_aliases(location: str, prefix: str, release: str) -> dict:
    """Two aliases of one Redis (or, without one, of one process's memory), both under the instance's prefix:
    - `default`: what is derived from the database by this release's code (bodies, short forms, kept pages,
      search windows, list totals, rendered Markdown). Its keys carry the release (Django's cache VERSION),
      so an entry one release wrote is never read by another;
    - `state`: keys without the release, the ones every earlier release used: what must outlive a release
      (failed-credential counts and locks, the verification cooldown, the checkout's one-time nonces) and
      the token rows, which every release drops on a revocation (apps.oauth.selectors.token_cache)."""
    if location:
        backend = {"BACKEND": "apps.core.cache.failopen.FailOpenRedisCache", "LOCATION": location,
                   "OPTIONS": CACHE_REDIS_OPTIONS, "KEY_PREFIX": prefix}
    else:
        backend = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "KEY_PREFIX": prefix}
    return {"default": {**backend, "VERSION": release}, "state": backend}


CACHES = cache_aliases(REDIS_URL, CACHE_KEY_PREFIX, THINGYARD_RELEASE)

# --- Django REST framework -------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["apps.oauth.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["apps.core.pipeline.permissions.IsTokenUser"],
    "DEFAULT_PARSER_CLASSES": ["apps.core.pipeline.parsers.LenientJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["apps.core.pipeline.renderers.ApiJSONRenderer"],
    "DEFAULT_PAGINATION_CLASS": "apps.core.pipeline.pagination.LinkHeaderPagination",
    "PAGE_SIZE": 30,
    "EXCEPTION_HANDLER": "apps.core.pipeline.handlers.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "apps.core.pipeline.schema.ApiAutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "URL_FORMAT_OVERRIDE": None,
    "FORMAT_SUFFIX_KWARG": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Thingyard API",
    "DESCRIPTION": (
        "Public REST API of Thingyard, wire-compatible with the design-sharing API spec.\n\n"
        "Every request needs an OAuth access token, as `Authorization: Bearer <token>` or the "
        "`access_token` query parameter. Bodies are JSON (`null` or no body means no fields). Every path "
        "answers with and without its trailing slash. Lists take `page` and `per_page` (30 by default, "
        "at most 100) and return `Link` headers. Every response after authentication carries "
        "`X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (300 requests per 5 "
        "minutes). Errors are `{\"error\", \"code\", \"type\"}` (the `Error` schema) with an `X-Error` "
        "header.\n\n"
        "JSON-P: any GET takes `callback` (letters, digits, `_`, `$`, `.`; at most 64) and then answers "
        "`/**/callback(<the JSON>);` as `application/javascript`; another `callback` is 400 "
        "`INVALID_CALLBACK`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the npm package (NODE_STATIC_FILES); "Authorize" runs the authorization-code flow
    # with PKCE against an app the developer registered (apps/core/pipeline/views.py SwaggerUiView).
    "SWAGGER_UI_DIST": STATIC_URL + "vendor/swagger-ui",
    "SWAGGER_UI_FAVICON_HREF": STATIC_URL + "vendor/swagger-ui/favicon-32x32.png",
    # Swagger UI renders only the operations in view: `filter` finds one by tag without scrolling.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "filter": True, "persistAuthorization": False},
    "SWAGGER_UI_OAUTH2_CONFIG": {"appName": "Thingyard API", "usePkceWithAuthorizationCodeGrant": True},
    # The OAuth flow's URLs are made absolute ({auth_url}) when the document is generated.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.core.pipeline.schema.oauth_flow_urls_absolute",
        "apps.core.pipeline.wire.schema_hook",  # the document of the wire version asked for
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    "APPEND_COMPONENTS": {
        "securitySchemes": {
            "oauth2": {
                "type": "oauth2",
                "description": (
                    "The authorization-code flow (PKCE S256 is accepted from every app, required from "
                    "public ones). To try the API here, register an app in the developer portal with the "
                    "callback URL `<this site>/docs/oauth2-redirect.html`, press Authorize and enter its "
                    "client id (and, for a confidential app, its secret)."
                ),
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": "/login/oauth/authorize",
                        "tokenUrl": "/login/oauth/access_token",
                        "refreshUrl": "/login/oauth/access_token",
                        "scopes": {},
                    }
                },
            }
        }
    },
    "SECURITY": [{"oauth2": []}],
}

# --- OAuth2 provider (django-oauth-toolkit) --------------------------------------------------------
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth.Application"
# Device sign-in (RFC 8628, docs/decisions.md: Device sign-in): device codes kept as checksums, user codes
# indexed (apps.oauth.device.models).
OAUTH2_PROVIDER_DEVICE_GRANT_MODEL = "oauth.DeviceGrant"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth2_provider.Grant"


def _pkce_required_for_client(client_id) -> bool:
    from apps.oauth.validators import pkce_required_for_client  # the app's rule; apps load after settings

    return pkce_required_for_client(client_id)


OAUTH2_PROVIDER: dict[str, Any] = {
    "OAUTH2_VALIDATOR_CLASS": "apps.oauth.validators.ThingyardOAuth2Validator",
    "OAUTH2_BACKEND_CLASS": "apps.oauth.backends.AnyBodyOAuthLibCore",
    "ACCESS_TOKEN_GENERATOR": "apps.oauth.tokens.generate_token",
    "REFRESH_TOKEN_GENERATOR": "apps.oauth.tokens.generate_token",
    # docs/security.md (issue 14 finding 1): a fast keyed hash, not PBKDF2 (apps.oauth.hashers).
    "CLIENT_SECRET_HASHER": "thingyard_client_hmac_sha256",
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(timedelta(days=30).total_seconds()),
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": int(timedelta(days=365).total_seconds()),
    "ROTATE_REFRESH_TOKEN": True,
    # RFC 9700 §4.14.2 (docs/security.md, issue 14 finding 6): a rotated-out refresh token presented again
    # means it leaked; every access and refresh token of its family (all descended from the same code) is
    # revoked, for public and confidential clients alike. No grace period: a retry needs the new token.
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    # Public clients must use PKCE, confidential ones may (docs/decisions.md): a per-client policy, which
    # ThingyardOAuth2Validator.is_pkce_required applies.
    "PKCE_REQUIRED": _pkce_required_for_client,
    # RFC 9700 (docs/security.md, issue 22): the password grant and PKCE `plain` refused by DOT too (the
    # validator refused both already); the RFC 9207 `iss` in every authorization response.
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "OIDC_ISS_ENDPOINT": AUTH_BASE_URL,
    # docs/security.md (issue 22, finding 6): access and refresh tokens are stored as their SHA-256
    # checksum only (RFC 9700 §4); the `token` column stays empty (apps.oauth.signals for the project's
    # own tokens).
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "SCOPES": {"read": "Read your data", "write": "Change your data"},
    "DEFAULT_SCOPES": ["read", "write"],
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
    # Only the grant types docs/decisions.md names; any other is 400 unsupported_grant_type (apps.oauth.server).
    "OAUTH2_SERVER_CLASS": "apps.oauth.server.ThingyardServer",
    # DOT's default pre-token hook reads the device grant without checks (a 500 on a missing or unknown
    # device_code); ThingyardOAuth2Validator.validate_device_code does that reading (apps.oauth.device).
    "OAUTH_PRE_TOKEN_VALIDATION": [],
    "DEVICE_FLOW_INTERVAL": 5,
}

# --- CORS (django-cors-headers); origins are checked against registered apps (apps.core.pipeline.cors) -------
CORS_ALLOW_ALL_ORIGINS = False
CORS_ALLOW_CREDENTIALS = False
# Site pages never answer other origins; thing-apps/ is the SDK host's session endpoints (issue 7); the
# shapes after it are the site's pages (issue 15, docs/decisions.md: The site for people).
CORS_URLS_REGEX = (
    r"^/(?!login/|admin/|developers/|account/|signup/|logout/|thing-apps/"
    r"|thing:|make:|collection:|@|find$|browse/|new$).*$"
)
CORS_ALLOW_METHODS = ["GET", "POST", "PATCH", "DELETE", "OPTIONS"]
CORS_ALLOW_HEADERS = ["authorization", "content-type"]
CORS_EXPOSE_HEADERS = ["Link", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Error"]

# --- Celery ------------------------------------------------------------------------------------------
CELERY_BROKER_URL = CELERY_BROKER_URL or REDIS_URL or "memory://"
CELERY_TASK_IGNORE_RESULT = True
# A task is acknowledged when it has run, not when it starts: a worker that dies mid-task (SIGKILL, OOM,
# a lost host) leaves its message to the broker, which hands it out again (every task is idempotent).
CELERY_TASK_ACKS_LATE = True
# A pool child killed mid-task (the OOM killer) gives its message back at once instead of failing it.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Redis redelivers a message a dead worker held after the visibility timeout (Celery's default is an
# hour); the restore scan runs every 5 s. Longer than any task may run (processing's hard limit, 75 s) or
# wait in a worker (countdowns are capped at 60 s: apps/core/broker/enqueue.py), so a live worker's message is
# not handed out twice. docs/reliability.md measures the recovery.
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
    "visibility_timeout": 90,
    "unacked_restore_interval": 5,
    "unacked_restore_throttle": 1,
}
# A publish retries once at once (a pooled connection may be stale after a Redis restart), then fails
# fast: a request never waits on a dead broker (Celery's default is ~0.6 s); pending-task rows and sweeps
# recover the work (apps/core/broker/enqueue.py, docs/reliability.md).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.05,
    "interval_max": 0.05,
}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
# Three queues, so slow work never delays quick work (finding 8): `processing` (meshes, images, Thing
# packages: seconds to a minute each), `webhooks` (deliveries and their sweeps) and the default `celery`
# (everything else: mail, upload checks, sweeps, the pending-task redrive). A worker consumes what its
# -Q names: docker-compose runs one worker for `processing` and one for `webhooks,celery`; `make run`
# one worker for all three. The default keeps Celery's own name, so messages queued before the queues
# were split are still consumed.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "apps.uploads.processing.tasks.*": {"queue": "processing"},
    "apps.uploads.package_tasks.*": {"queue": "processing"},
    "apps.webhooks.tasks.*": {"queue": "webhooks"},
}
PENDING_REDRIVE_SECONDS = 5.0
CELERY_BEAT_SCHEDULE: dict = {
    # Tasks whose publish failed (broker down) or whose delay is over: queued within seconds.
    "core-pending-tasks-redrive": {
        "task": "apps.core.tasks.pending_tasks_redrive",
        "schedule": PENDING_REDRIVE_SECONDS,
    },
    # Pending uploads past their expiry: finalize the arrived, expire the rest, delete stray objects.
    "uploads-sweep-expired": {"task": "apps.uploads.tasks.uploads_sweep_expired", "schedule": 600.0},
    # Files and images whose processing lost its worker or ran out of retries.
    "uploads-requeue-stuck-processing": {
        "task": "apps.uploads.processing.tasks.processing_requeue_stuck",
        "schedule": 900.0,
    },
    # Webhook retries due (hours-long backoff lives in the row, not in broker countdowns).
    "webhooks-dispatch-due": {"task": "apps.webhooks.tasks.webhooks_dispatch_due", "schedule": 30.0},
    # Webhook deliveries whose worker died mid-attempt (claimed > 2 min ago) go back to pending.
    "webhooks-sweep-stale": {"task": "apps.webhooks.tasks.webhooks_sweep_stale", "schedule": 60.0},
    # Device sign-ins long expired (their devices stopped polling): deleted (apps.oauth.device).
    # The daily notification digest (apps.notifications): each member's unmailed notifications, once.
    "notifications-daily-digest": {
        "task": "apps.notifications.tasks.notifications_digest_enqueue_all",
        "schedule": crontab(hour=7, minute=0),
    },
    "oauth-device-grants-purge": {"task": "apps.oauth.device.tasks.device_grants_purge", "schedule": 3600.0},
}
# Task modules beyond each app's tasks.py (autodiscovered).
# (The uploads parts' tasks keep their names from before the split: apps.uploads.tasks.upload_verify …)
CELERY_IMPORTS = [
    "apps.uploads.flow.tasks",
    "apps.uploads.packages.tasks",
    "apps.uploads.processing.tasks",
    "apps.oauth.device.tasks",
]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # Tokens, codes and client secrets never reach a log line (apps/core/security/redaction.py, RFC 9700 §4.3).
    "filters": {"redact": {"()": "apps.core.security.redaction.RedactingFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact"]}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # runserver's request lines (`make run`): Django's own handler for them has no filter.
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}
