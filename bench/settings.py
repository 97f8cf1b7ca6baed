"""Settings of the benchmark server: the test settings run like production, plus the floor route.

Only `make bench` uses this module. DEBUG is off, database connections persist across requests as in
production (CONN_MAX_AGE), and ROOT_URLCONF adds the bare floor view to the real URLconf, so the
production URLconf never contains it.
"""
import os

from config.settings.test import *  # noqa: F401,F403

DEBUG = False
ROOT_URLCONF = "bench.urls"
# Persistent connections, as production intends. Django reads these per database, not at the top level.
DATABASES["default"]["CONN_MAX_AGE"] = 60  # noqa: F405
DATABASES["default"]["CONN_HEALTH_CHECKS"] = False  # noqa: F405  # as production: apps.core.db.postgresql recovers
# Commits wait for the disk, as production's do: the test settings turn that off for throwaway test
# databases (synchronous_commit=off), which would flatter the bench's writes.
_options = DATABASES["default"].get("OPTIONS", {})  # noqa: F405
_options["options"] = _options.get("options", "").replace("-c synchronous_commit=off", "").strip()
if not _options["options"]:
    del _options["options"]
# The request-path caches run as in production (the test settings turn them off for query counting).
OAUTH_TOKEN_CACHE_SECONDS = 5
THING_BODY_CACHE_SECONDS = 600
# The test settings look static files up on every request; production serves them from a manifest.
WHITENOISE_AUTOREFRESH = False
STATIC_ROOT = None  # type: ignore[assignment]  # nothing collected: no static files are served during the benchmark
# The API's absolute URLs have production's length, so response sizes are realistic.
API_BASE_URL = AUTH_BASE_URL = SITE_URL = "https://api.thingyard.example"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    # A 4xx is part of a benchmark's error count, not a log line per request.
    "loggers": {"django.request": {"level": "ERROR"}},
}
# The servers `make bench` starts with the search window cache off (bench/targets.py COLD_ENV), to show
# what a search costs when its window is not cached.
if os.environ.get("BENCH_SEARCH_WINDOW_CACHE") == "0":
    SEARCH_WINDOW_CACHE_SECONDS = 0
# ... and with the request-path caches off (detail and list measured without them).
if os.environ.get("BENCH_REQUEST_CACHES") == "0":
    OAUTH_TOKEN_CACHE_SECONDS = 0
    THING_BODY_CACHE_SECONDS = 0
