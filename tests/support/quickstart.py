"""The quick start's tests (apps/demo/tests, the quick start's SQLite search in apps/search/tests) share one
SQLite database migrated from scratch once per test run (issue 23: CI in half the time): migrating the
quick start's SQLite file is the longest step of each of them, and each test copies the migrated file
into its own run directory instead of migrating again. The migration from scratch is still run, and
checked, once per run: a failure fails every test that needs it. A pytest plugin (the root conftest.py
loads it)."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.dbtemplate import run_lock

ROOT = Path(__file__).resolve().parents[2]
DATABASE_FILE = "thingyard.sqlite3"  # config/settings/local.py's name in THINGYARD_RUN_DIR


def quickstart_env(run_dir: Path, **overrides: str) -> dict[str, str]:
    """The environment of a quick-start process whose state lives in `run_dir` (config/settings/local.py)."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "THINGYARD_RUN_DIR": str(run_dir),
        "DATABASE_URL": "",  # the embedded SQLite file in THINGYARD_RUN_DIR
        "REDIS_URL": "",  # the embedded broker, as `make run`
        **overrides,
    }


def _build(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    env = quickstart_env(directory, S3_ENDPOINT_URL="http://127.0.0.1:9")
    result = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"the quick start's migrate failed:\n{result.stdout[-2000:]}{result.stderr[-4000:]}"
    (directory / "migrated").write_text("ok")


@pytest.fixture(scope="session")
def quickstart_migrated(request) -> Path:
    """A quick-start SQLite database migrated from scratch, once per run (all xdist workers share it)."""
    run_id = getattr(request.config, "workerinput", {}).get("testrunuid") or f"pid{os.getpid()}"
    base = Path(tempfile.gettempdir())
    directory = base / f"thingyard-quickstart-{run_id}"
    with run_lock("quickstart-template"):
        if not (directory / "migrated").exists():
            for old in base.glob("thingyard-quickstart-*"):  # earlier runs' copies
                if time.time() - old.stat().st_mtime > 3600:
                    shutil.rmtree(old, ignore_errors=True)
            _build(directory)
    return directory / DATABASE_FILE


@pytest.fixture
def quickstart_run_dir(tmp_path, quickstart_migrated) -> Path:
    """A fresh run directory holding a copy of the migrated quick-start database."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    with run_lock("quickstart-template"):  # never copied half-written
        shutil.copy2(quickstart_migrated, run_dir / DATABASE_FILE)
    return run_dir


def quickstart_shell(run_dir: Path, script: str) -> subprocess.CompletedProcess:
    """`manage.py shell -c script` as the quick start runs it (config.settings.local) on the SQLite
    database in `run_dir` (quickstart_run_dir): its schema, search index and triggers are the migrations'.
    Fails the test when the script does."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": f"sqlite:///{run_dir / DATABASE_FILE}",
        "REDIS_URL": "",
        "CELERY_BROKER_URL": "memory://",
        "S3_ENDPOINT_URL": "http://127.0.0.1:9",
        "THINGYARD_RUN_DIR": str(run_dir),
    }
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, f"{result.stdout[-2000:]}{result.stderr[-4000:]}"
    return result
