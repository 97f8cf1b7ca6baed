"""The quick start's SQLite search stems and suggests as PostgreSQL's does (issue 26; the PostgreSQL side is
test_forgiving_search.py). It runs a quick-start process on its own SQLite file, not the test database: a
`long` test (tests/support/ordering.py)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.quickstart import DATABASE_FILE

ROOT = Path(__file__).resolve().parents[3]

SQLITE_SCRIPT = """
from apps.accounts.models import User
from apps.search.selectors import SearchParams, search_suggestion, thing_search
from apps.things.models import Thing
maker = User.objects.create_user(username="maker", password="x")
for name in ("Parametric Shelf Bracket", "Calibration Cube"):
    Thing.objects.create(creator=maker, name=name, description="", is_published=True, license="cc-sa")
found = [t.name for t in thing_search(term="brackets", viewer=None, params=SearchParams())]
print("FOUND", found)
print("SUGGEST", search_suggestion(term="calibraton"))
renamed = Thing.objects.get(name="Calibration Cube")
renamed.name = "Benchy boats"
renamed.save()
print("AFTER", [t.name for t in thing_search(term="boat", viewer=None, params=SearchParams())])
"""


@pytest.mark.long
def test_the_quick_starts_sqlite_search_stems_and_suggests_alike(quickstart_run_dir):
    # The quick start's SQLite database, migrated from scratch once per run (tests/support/quickstart.py):
    # its search index and triggers are the migrations'.
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": f"sqlite:///{quickstart_run_dir / DATABASE_FILE}",
        "REDIS_URL": "",
        "CELERY_BROKER_URL": "memory://",
        "S3_ENDPOINT_URL": "http://127.0.0.1:9",
        "THINGYARD_RUN_DIR": str(quickstart_run_dir),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", SQLITE_SCRIPT], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=240,
    )
    assert result.returncode == 0, f"{result.stdout[-2000:]}{result.stderr[-4000:]}"
    out = result.stdout
    assert "FOUND ['Parametric Shelf Bracket']" in out
    assert "SUGGEST calibration" in out
    assert "AFTER ['Benchy boats']" in out  # the triggers keep the index current
