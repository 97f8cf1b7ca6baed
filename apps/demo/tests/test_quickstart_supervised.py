"""`make run` stays up (issue 23): scripts/run-local.sh as a user runs it, its worker killed, and an upload
made afterwards goes live; on the way, the quick start's 404 is the site's page and its static files are
served compressed with long cache headers.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from apps.uploads.tests.upload_helpers import png_bytes, store_post

ROOT = Path(__file__).resolve().parents[3]
START_SECONDS = 600  # migrate, collectstatic (brotli) and seed on a loaded 2-core machine


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(predicate, *, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"{what} not reached in {timeout:.0f} s")


@pytest.fixture
def make_run(tmp_path, quickstart_run_dir):
    # A copy of the database migrated from scratch once per run (conftest.py): `make run`'s migrate finds
    # nothing to do, and what is measured here is the supervision.
    run_dir = quickstart_run_dir
    collected = ROOT / ".run" / "static"
    if (collected / "staticfiles.json").exists():  # a fresh collection is reused, as `make run` does
        shutil.copytree(collected, run_dir / "static", copy_function=shutil.copy2)
    port, s3_port, app_port = _free_port(), _free_port(), _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
        "THINGYARD_RUN_DIR": str(run_dir),
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "S3_ENDPOINT_URL": "",
        "PORT": str(port),
        "S3_PORT": str(s3_port),
        "APP_PORT": str(app_port),
        "VENV": str(ROOT / ".venv"),
    }
    out = open(tmp_path / "make-run.log", "wb")
    process = subprocess.Popen(["bash", "scripts/run-local.sh"], cwd=ROOT, env=env, stdout=out,
                               stderr=subprocess.STDOUT, start_new_session=True)
    log = tmp_path / "make-run.log"
    try:
        _wait_for(lambda: "stop: Ctrl-C" in log.read_text(errors="replace") or process.poll() is not None,
                  timeout=START_SECONDS, what="make run started")
        assert process.poll() is None, log.read_text(errors="replace")[-4000:]
        yield {"base": f"http://127.0.0.1:{port}", "run": run_dir, "log": log, "process": process}
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)  # Ctrl-C
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
        out.close()


def _ctl(run: Path, *args) -> str:
    ctl = [str(ROOT / ".venv" / "bin" / "supervisorctl"), "-c", str(run / "supervisord.conf"), *args]
    return subprocess.run(ctl, capture_output=True, text=True, timeout=60).stdout


@pytest.mark.long
def test_make_run_restarts_a_killed_worker_and_an_upload_afterwards_goes_live(make_run):
    base, run = make_run["base"], make_run["run"]
    status = _ctl(run, "status")
    for program in ("web", "worker", "beat", "objectstore", "example-app"):
        assert re.search(rf"^{program}\s+RUNNING", status, re.M), status

    # DEBUG is off: an unknown Thing is the site's own 404 page, not Django's debug page.
    missing = requests.get(base + "/thing:999999", headers={"Accept": "text/html"}, timeout=30)
    assert missing.status_code == 404 and "We could not find that page" in missing.text
    assert "URLconf" not in missing.text and "DEBUG = True" not in missing.text
    # Static files: hashed names, compressed, cached for a year.
    docs = requests.get(base + "/docs/", timeout=30).text
    found = re.search(r'src="(/static/vendor/swagger-ui/swagger-ui-bundle\.[0-9a-f]{12}\.js)"', docs)
    assert found is not None, docs[:2000]
    bundle = found.group(1)
    served = requests.get(base + bundle, headers={"Accept-Encoding": "gzip, br"}, timeout=30, stream=True)
    assert served.headers["Content-Encoding"] in ("br", "gzip")
    assert "immutable" in served.headers["Cache-Control"] and "max-age=315360000" in served.headers["Cache-Control"]
    served.close()

    # The worker is killed; supervisord starts it again within seconds and says so.
    old_pid = int(_ctl(run, "pid", "worker").strip())
    os.kill(old_pid, signal.SIGKILL)
    supervisor_log = run / "supervisord.log"
    _wait_for(lambda: "exited: worker (terminated by SIGKILL; not expected)" in supervisor_log.read_text(),
              timeout=30, what="supervisord noticing the dead worker")
    new_pid = _wait_for(lambda: (p := _ctl(run, "pid", "worker").strip()).isdigit() and int(p) != old_pid and int(p),
                        timeout=30, what="a new worker")
    assert new_pid != old_pid
    assert "spawned: 'worker'" in supervisor_log.read_text().split("exited: worker", 1)[1]

    # An upload made afterwards is processed by the new worker.
    printed = re.search(r"access token:\s+(\w+)", (run / "demo.txt").read_text())
    assert printed is not None
    token = printed.group(1)
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {token}"
    thing = api.post(base + "/things/", json={"name": "After the worker died"}, timeout=30).json()["id"]
    descriptor = api.post(base + f"/things/{thing}/files", json={"filename": "photo.png"}, timeout=30).json()
    assert store_post(descriptor, png_bytes(), filename="photo.png").status_code in (200, 201, 204, 303)
    upload_id = descriptor["fields"]["success_action_redirect"].rstrip("/").split("/")[-2]
    assert api.post(base + f"/files/{upload_id}/finalize", timeout=30).status_code == 200

    def live():
        images = api.get(base + f"/things/{thing}/images", timeout=30).json()
        return images and images[0]["status"] == "live"

    _wait_for(live, timeout=120, what="the upload processed by the restarted worker")

    # Ctrl-C stops supervisord and every program.
    process = make_run["process"]
    os.killpg(process.pid, signal.SIGINT)
    process.wait(60)
    with pytest.raises(requests.ConnectionError):
        requests.get(base + "/healthz", timeout=5)
    assert not (run / "supervisord.pid").exists()
