"""The fault stack: a real web process and worker on private servers the tests may break.

One per session (about 10 s to build): a private PostgreSQL cluster holding a copy of the migrated test
database, a private redis-server (rate limit, cache and Celery broker), two proxies in front of the
session's moto S3 server (one for the web process, one for the worker, so each can be cut or held on
its own), gunicorn with two sync workers and the production settings, and seeded users with tokens.
Each test leaves the stack healthy again (servers restarted, proxies restored) even when it fails.

The figures each test measured are printed at the end of the run (docs/reliability.md quotes them).
"""
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import pytest
import requests

from tests.faults.servers import ROOT, CeleryWorker, Gunicorn, PrivatePostgres, PrivateRedis, StoreProxy

FIGURES: dict[str, dict] = {}
HTTP_TIMEOUT = 20


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "faults: breaks private PostgreSQL/Redis/store/worker processes under a real web process"
    )


def pytest_terminal_summary(terminalreporter):
    if not FIGURES:
        return
    terminalreporter.section("fault figures (docs/reliability.md)")
    for name, figures in FIGURES.items():
        terminalreporter.write_line(f"{name}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))


def record(name: str, **figures) -> None:
    FIGURES[name] = figures


@dataclass
class Stack:
    pg: PrivatePostgres
    redis: PrivateRedis
    web_store: StoreProxy
    worker_store: StoreProxy
    web: Gunicorn
    env: dict
    seed: dict
    session: requests.Session = field(default_factory=requests.Session)

    def headers(self, who: str) -> dict:
        return {"Authorization": f"Bearer {self.seed['tokens'][who]}"}

    def request(self, method: str, path: str, *, who: str = "alice", **kw) -> requests.Response:
        kw.setdefault("timeout", HTTP_TIMEOUT)
        headers = {**self.headers(who), **kw.pop("headers", {})} if who else kw.pop("headers", {})
        return self.session.request(method, f"{self.web.url}{path}", headers=headers, **kw)

    def get(self, path: str, **kw) -> requests.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw) -> requests.Response:
        return self.request("POST", path, **kw)

    def delete(self, path: str, **kw) -> requests.Response:
        return self.request("DELETE", path, **kw)

    def upload(self, *, thing_id: int, filename: str, data: bytes, who: str = "alice") -> int:
        """spec §4.10 steps 2-4 as a client does them; returns the pending upload's id (not finalized)."""
        from apps.uploads.tests.upload_helpers import store_post

        started = self.post(f"/things/{thing_id}/files", who=who, json={"filename": filename})
        assert started.status_code == 200, started.text
        descriptor = started.json()
        stored = store_post(descriptor, data, filename=filename)
        assert stored.status_code in (200, 201, 204, 303), stored.text
        return int(descriptor["fields"]["success_action_redirect"].rstrip("/").split("/")[-2])

    def worker_env(self) -> dict:
        # The worker reaches the store through its own proxy, so a test can stall or cut it alone.
        return {**self.env, "S3_ENDPOINT_URL": self.worker_store.url}

    def celery(self):
        """A Celery client on the stack's broker, to send tasks by name (as beat does)."""
        from celery import Celery
        from django.conf import settings

        client = Celery("faults-client", broker=self.redis.url(0), set_as_current=False)
        client.conf.task_routes = settings.CELERY_TASK_ROUTES  # to each task's queue, as the web does
        return client


def _stack_env(*, pg: PrivatePostgres, redis: PrivateRedis, web_store: StoreProxy, public_store: str) -> dict:
    from django.conf import settings

    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env.update({
        "DJANGO_SETTINGS_MODULE": "tests.faults.stack_settings",
        "DJANGO_SECRET_KEY": "faults-stack-" + "k" * 40,
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": pg.url,
        "REDIS_URL": redis.url(0),
        "S3_ENDPOINT_URL": web_store.url,
        "S3_PUBLIC_URL": public_store,
        "S3_BUCKET": settings.S3_BUCKET,
        "S3_REGION": settings.S3_REGION,
        "S3_ACCESS_KEY_ID": settings.S3_ACCESS_KEY_ID,
        "S3_SECRET_ACCESS_KEY": settings.S3_SECRET_ACCESS_KEY,
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    })
    return env


@pytest.fixture(scope="session")
def stack(django_db_setup, django_db_blocker, s3_server, _object_store):
    from django.db import connection

    db = connection.settings_dict
    pg = PrivatePostgres()
    redis = PrivateRedis()
    web_store = StoreProxy(s3_server).start()
    worker_store = StoreProxy(s3_server).start()
    web = None
    try:
        pg.init()
        pg.load_schema_from(host=db["HOST"] or "127.0.0.1", port=int(db["PORT"] or 5432),
                            user=db["USER"] or "postgres", dbname=db["NAME"])
        redis.start()
        env = _stack_env(pg=pg, redis=redis, web_store=web_store, public_store=s3_server)
        seeded = subprocess.run([sys.executable, "-m", "tests.faults.seed"], cwd=ROOT, env=env,
                                capture_output=True, text=True)
        if seeded.returncode != 0:
            raise RuntimeError(f"seeding the fault stack failed:\n{seeded.stderr[-3000:]}")
        seed = json.loads(seeded.stdout.strip().splitlines()[-1])
        web = Gunicorn(env).start()
        yield Stack(pg=pg, redis=redis, web_store=web_store, worker_store=worker_store, web=web,
                    env=web.env, seed=seed)
    finally:
        if web is not None:
            web.stop()
        redis.stop()
        web_store.cut()
        worker_store.cut()
        pg.destroy()


@pytest.fixture
def healthy(stack):
    """Puts every server of the stack back after the test, whatever it broke."""
    yield stack
    if stack.redis.process is None:
        stack.redis.start()
    if not stack.pg.is_ready():
        stack.pg.start()
    for proxy in (stack.web_store, stack.worker_store):
        proxy.release()
        if proxy._listener is None:
            proxy.restore()


@pytest.fixture
def workers(stack):
    """workers(**options) → a started CeleryWorker on the stack (stopped after the test); `env` adds
    environment variables, the other options are CeleryWorker's."""
    started: list[CeleryWorker] = []

    def start(*, env: dict | None = None, **options) -> CeleryWorker:
        worker = CeleryWorker({**stack.worker_env(), **(env or {})}, **options)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()
