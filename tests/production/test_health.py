"""Liveness (/healthz) and readiness (/readyz, config/health.py): readiness is healthy only when a page
renders with its static files and PostgreSQL, Redis, the broker and the object store answer; each failure
is a 503 whose JSON names the failing check. Real services throughout: the failures are made by pointing a
setting at a closed port or an empty STATIC_ROOT, never by mocking a check."""
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

CHECKS = {"static", "database", "redis", "broker", "store"}
ROOT = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ready(client):
    response = client.get("/readyz")
    body = response.json()
    assert set(body["checks"]) == CHECKS
    return response.status_code, body


@pytest.mark.django_db
def test_liveness_answers_without_touching_anything(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_ready_when_everything_answers(client):
    status, body = _ready(client)
    assert status == 200, body
    assert body["status"] == "ok"
    assert all(check["ok"] and check["ms"] >= 0 for check in body["checks"].values())


@pytest.mark.django_db
def test_not_ready_without_the_collected_manifest(client, tmp_path):
    """Production's storage with nothing collected: every page would answer 500, so readiness is 503."""
    storages = {**settings.STORAGES, "staticfiles": {"BACKEND": "apps.core.site.staticfiles.ProductionStaticFilesStorage"}}
    with override_settings(STORAGES=storages, STATIC_ROOT=tmp_path):
        status, body = _ready(client)
    assert status == 503
    assert body["status"] == "unavailable"
    assert body["checks"]["static"]["ok"] is False
    assert "manifest" in body["checks"]["static"]["detail"]
    assert all(body["checks"][name]["ok"] for name in CHECKS - {"static"})


@pytest.mark.django_db
def test_ready_with_the_collected_manifest_and_not_when_a_file_is_gone(client, tmp_path):
    """collectstatic with the manifest storage succeeds (swagger-ui.css's source map is collected too),
    readiness is then healthy; a hashed file deleted from STATIC_ROOT makes it 503 again."""
    # The manifest storage without compression: the same post-processing (every reference a CSS file
    # makes must resolve), seconds faster; the production build (scripts/build-production.sh) compresses.
    storages = {**settings.STORAGES,
                "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"}}
    with override_settings(STORAGES=storages, STATIC_ROOT=tmp_path):
        call_command("collectstatic", interactive=False, verbosity=0)
        manifest = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
        assert "vendor/swagger-ui/swagger-ui.css.map" in manifest
        status, body = _ready(client)
        assert status == 200, body
        (tmp_path / manifest["vendor/three/three.core.min.js"]).unlink()
        status, body = _ready(client)
    assert status == 503
    assert "three.core" in body["checks"]["static"]["detail"]


@pytest.mark.django_db
def test_not_ready_when_the_store_is_down(client):
    closed = f"http://127.0.0.1:{_closed_port()}"
    with override_settings(S3_ENDPOINT_URL=closed, AWS_S3_ENDPOINT_URL=closed):
        status, body = _ready(client)
    assert status == 503
    assert body["checks"]["store"] == {"ok": False, "error": "StoreError", "ms": body["checks"]["store"]["ms"]}
    assert all(body["checks"][name]["ok"] for name in CHECKS - {"store"})


@pytest.mark.django_db
def test_not_ready_when_the_bucket_is_missing(client):
    with override_settings(S3_BUCKET="no-such-bucket-here"):
        status, body = _ready(client)
    assert status == 503
    assert body["checks"]["store"]["error"] == "BucketMissing"


@pytest.mark.django_db
def test_not_ready_when_redis_and_the_broker_are_down(client):
    closed = f"redis://127.0.0.1:{_closed_port()}/0"
    with override_settings(REDIS_URL=closed, CELERY_BROKER_URL=closed):
        status, body = _ready(client)
    assert status == 503
    assert body["checks"]["redis"]["ok"] is False
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["database"]["ok"] and body["checks"]["store"]["ok"]


def test_not_ready_when_the_database_is_down(s3_server):
    """A fresh process whose DATABASE_URL names a closed port (a bad setting, as an operator would make
    it): readiness is 503 with the database check failed; liveness still answers 200."""
    script = (
        "import json, django\n"
        "django.setup()\n"
        "from django.test import Client\n"
        "from django.conf import settings\n"
        f"settings.S3_ENDPOINT_URL = settings.AWS_S3_ENDPOINT_URL = {s3_server!r}\n"
        "client = Client()\n"
        "ready = client.get('/readyz')\n"
        "live = client.get('/healthz')\n"
        "print(json.dumps([ready.status_code, ready.json(), live.status_code]))\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{_closed_port()}/thingyard?connect_timeout=2",
    }
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    ready_status, body, live_status = json.loads(done.stdout.strip().splitlines()[-1])
    assert (ready_status, live_status) == (503, 200)
    assert body["checks"]["database"]["ok"] is False
    assert body["checks"]["database"]["error"] == "OperationalError"
    assert body["checks"]["store"]["ok"] and body["checks"]["redis"]["ok"]
