"""`make run` runs on SQLite with local settings; the PostgreSQL suite cannot see that mode's failures."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_quick_start_settings_migrate_seed_and_serve_the_main_endpoints(quickstart_run_dir):
    # The database was migrated from scratch on the quick start's settings (conftest.py), once per run.
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "THINGYARD_RUN_DIR": str(quickstart_run_dir),
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "CELERY_BROKER_URL": "memory://",
        # No object store in this check: seed_demo warns and carries on, as on a machine without moto.
        "S3_ENDPOINT_URL": "http://127.0.0.1:9",
    }
    for command in (["migrate", "--noinput"], ["seed_demo"], ["smoke_api"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True,
            timeout=180,
        )
        assert result.returncode == 0, f"{command}: {result.stdout[-2000:]}{result.stderr[-4000:]}"
    assert "checks passed" in result.stdout
