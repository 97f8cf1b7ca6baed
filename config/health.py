"""Liveness and readiness for load balancers, docker compose and systemd: no token, no rate limit.

- `/healthz` (liveness): the process is up and answers; no I/O, so a restart is never triggered by an
  outage of something else (PostgreSQL, Redis, the store), which restarting the web process cannot fix.
- `/readyz` (readiness): 200 only when the site can serve: a page renders with its static files (in
  production: the collected manifest names every file and the files are there), and PostgreSQL, Redis,
  the Celery broker and the object store answer. The JSON names each check (`ok`, milliseconds, and on
  failure the error's class, plus the missing file for static files); 503 when any fails. Each check is
  bounded by short timeouts (Redis and the broker 1 s, the store 2 s to connect, PostgreSQL its
  `connect_timeout`), so the answer comes within the health check's timeout. docker compose and the
  image's HEALTHCHECK use it; `scripts/production_smoke.py` expects it healthy.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.db import connection
from django.http import JsonResponse
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from kombu import Connection

from apps.uploads import store

REDIS_TIMEOUT_SECONDS = 1.0
BROKER_TIMEOUT_SECONDS = 1.0
# The page a readiness check renders: the site's own 404 page, on base.html with every static file a
# page links (stylesheet, scripts, icons); it reads nothing from the database for an anonymous visitor.
PAGE_TEMPLATE = "404.html"


@never_cache
def healthz(request):
    """Liveness: the process answers."""
    return JsonResponse({"status": "ok"})


def _static_names() -> list[str]:
    """The front-end libraries (three.js, Swagger UI) under their static names; the site's own files
    are checked by rendering the page."""
    return [f"{prefix}/{name}" for prefix, _, names in settings.NODE_STATIC_FILES for name in names]


class StaticMissing(Exception):
    pass


def check_static(request) -> None:
    """A page renders with its static files: with the manifest storage (production) every URL must be in
    the collected manifest and the hashed file on disk; otherwise (quick start, tests) the finders must
    find each file."""
    render_to_string(PAGE_TEMPLATE, request=request)
    storage = staticfiles_storage  # a lazy object: isinstance sees the storage it stands for
    for name in _static_names():
        if isinstance(storage, ManifestFilesMixin):
            storage.url(name)  # ValueError: "Missing staticfiles manifest entry for …"
            stored = storage.stored_name(name)
            if not storage.exists(stored):
                raise StaticMissing(f"{stored} is in the manifest but not in STATIC_ROOT")
        elif not finders.find(name):
            raise StaticMissing(f"{name} is not found (run `npm ci`)")


def check_database(request) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def check_redis(request) -> None:
    if not settings.REDIS_URL:
        return  # the quick start runs without Redis (config/settings/local.py)
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_connect_timeout=REDIS_TIMEOUT_SECONDS, socket_timeout=REDIS_TIMEOUT_SECONDS
    )
    try:
        client.ping()
    finally:
        client.close()


def check_broker(request) -> None:
    """A connection to the broker Celery publishes to (settings.CELERY_BROKER_URL), opened and closed."""
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=BROKER_TIMEOUT_SECONDS,
                    transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=BROKER_TIMEOUT_SECONDS)
        # redis: the connection is opened lazily; a round trip proves the server answers.
        client = getattr(conn.default_channel, "client", None)
        if client is not None and hasattr(client, "ping"):
            client.ping()


def check_store(request) -> None:
    store.bucket_check()


CHECKS: dict[str, Callable] = {
    "static": check_static,
    "database": check_database,
    "redis": check_redis,
    "broker": check_broker,
    "store": check_store,
}


def _run(name: str, check: Callable, request) -> dict:
    started = time.monotonic()
    try:
        check(request)
    except Exception as exc:  # noqa: BLE001 - any failure means "not ready"; the JSON says which
        result: dict = {"ok": False, "error": type(exc).__name__}
        if name == "static" and isinstance(exc, (StaticMissing, ValueError)):
            result["detail"] = str(exc)[:300]  # a static file's name; never a host, user or password
    else:
        result = {"ok": True}
    result["ms"] = round((time.monotonic() - started) * 1000, 1)
    return result


@never_cache
def readyz(request):
    """Readiness: every check, 200 when all pass, else 503 (JSON detail of each)."""
    checks = {name: _run(name, check, request) for name, check in CHECKS.items()}
    ready = all(result["ok"] for result in checks.values())
    return JsonResponse({"status": "ok" if ready else "unavailable", "checks": checks},
                        status=200 if ready else 503)
