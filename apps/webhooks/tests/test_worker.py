"""Integration: a real Celery worker (`celery -A config worker --pool=solo`) on Redis, a real receiver.

Slow-ish (each worker start is a few seconds) and marked `worker`: `pytest -m "not worker"` skips them.
The worker uses the same test database (committed rows: transaction=True) and REDIS_URL's broker.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from apps.oauth.tests.factories import ApplicationFactory
from apps.webhooks import services
from apps.webhooks.models import Delivery

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[3]
START_TIMEOUT = 20.0


class Worker:
    def __init__(self):
        from config.celery import app

        self.app = app
        self.name = f"webhooks-test-{uuid.uuid4().hex[:8]}@localhost"
        db = connection.settings_dict
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "apps.webhooks.tests.worker_settings",
            "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
                            f"{db['PORT'] or 5432}/{db['NAME']}",
            "REDIS_URL": settings.CELERY_BROKER_URL,
            "LOG_LEVEL": "INFO",
        }
        self.log = tempfile.NamedTemporaryFile(prefix="webhooks-worker-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--concurrency=1",
             "-n", self.name, "-Q", "celery,webhooks,processing", "--without-gossip", "--without-mingle",
             "--loglevel=INFO"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self._wait_ready()

    def _wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited: {self.output()}")
            if "ready." in self.output():
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"worker not ready in {START_TIMEOUT} s: {self.output()}")

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def kill(self):
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        Path(self.log.name).unlink(missing_ok=True)


@pytest.fixture
def workers():
    from config.celery import app

    started: list[Worker] = []
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False  # this process publishes to Redis like the web process does

    def start() -> Worker:
        worker = Worker()
        started.append(worker)
        return worker

    yield start
    app.conf.task_always_eager = eager
    for worker in started:
        worker.stop()


@pytest.fixture
def live_app(db, receiver, settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = True
    return ApplicationFactory(webhook_url=receiver.url)


def _wait_status(delivery, status, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        delivery.refresh_from_db()
        if delivery.status == status:
            return True
        time.sleep(0.05)
    return False


def test_a_real_worker_delivers_a_committed_event(workers, live_app, receiver):
    worker = workers()
    with transaction.atomic():
        delivery = services.webhook_event_record(application=live_app, event="order_created",
                                                 payload={"order": {"id": "1"}})
    assert receiver.wait_for(1, timeout=10), worker.output()
    assert receiver.requests[0]["headers"]["webhook-id"] == delivery.message_id
    assert _wait_status(delivery, "succeeded"), worker.output()


def test_a_delivery_whose_worker_was_killed_arrives_after_the_sweep(workers, live_app, receiver):
    receiver.respond(("block", None))
    first = workers()
    with transaction.atomic():
        delivery = services.webhook_event_record(application=live_app, event="order_created",
                                                 payload={"order": {"id": "2"}})
    assert receiver.wait_for(1, timeout=10), first.output()
    first.kill()  # mid-delivery: the receiver has the request, the worker never records an answer
    receiver.release()
    delivery.refresh_from_db()
    assert delivery.status == "sending"

    workers()
    # The claim is now older than the sweep's threshold (as it would be two minutes later).
    Delivery.objects.filter(pk=delivery.pk).update(claimed_at=timezone.now() - timedelta(minutes=3))
    assert services.webhook_sweep_stale() == 1
    assert receiver.wait_for(2, timeout=10)
    assert [r["headers"]["webhook-id"] for r in receiver.requests] == [delivery.message_id] * 2
    assert _wait_status(delivery, "succeeded")
    assert list(delivery.attempts.order_by("number").values_list("number", "status_code")) == [(1, None), (2, 200)]
