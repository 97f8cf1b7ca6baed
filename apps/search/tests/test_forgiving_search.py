"""Search that forgives (issue 26): plurals by stemming, typos by "did you mean" (trigram candidates on
PostgreSQL), and the search box's autocomplete; the quick start's SQLite search behaves alike."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from apps.search.selectors import search_suggestion
from apps.search.tests.helpers import indexed_thing
from tests.support.quickstart import DATABASE_FILE

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def catalogue(db):
    return {
        "bracket": indexed_thing(name="Parametric Shelf Bracket", description="Holds a shelf."),
        "cube": indexed_thing(name="Calibration Cube", description="Twenty millimetres on each side."),
    }


def test_a_plural_finds_the_singular(catalogue):
    html = Client().get("/find", {"q": "brackets"}).content.decode()
    assert "Parametric Shelf Bracket" in html
    assert "Nothing matches" not in html


def test_a_typo_shows_the_closest_spelling_and_its_results(catalogue):
    html = Client().get("/find", {"q": "calibraton"}).content.decode()
    assert "Calibration Cube" in html
    assert "showing results for" in html and "calibration" in html


def test_a_suggestion_corrects_only_the_word_that_matches_nothing(catalogue):
    assert search_suggestion(term="shelf calibraton") == "shelf calibration"
    assert search_suggestion(term="bracket") == ""  # matches: nothing to correct
    assert search_suggestion(term="zzyzx") == ""  # nothing close


def test_a_hidden_or_draft_things_name_is_never_suggested(db):
    indexed_thing(name="Secret Widget", is_hidden=True)
    indexed_thing(name="Draft Gizmo", is_published=False)
    assert search_suggestion(term="widgit") == ""
    assert search_suggestion(term="gizmoo") == ""


def test_no_match_and_no_suggestion_says_nothing_matches(catalogue):
    html = Client().get("/find", {"q": "qwxzv"}).content.decode()
    assert "Nothing matches" in html and "showing results for" not in html


def test_the_search_box_offers_autocomplete(catalogue):
    body = Client().get("/find/suggest", {"q": "cali"}).json()
    assert {"type": "thing", "name": "Calibration Cube"} in body["suggestions"]
    assert Client().get("/find/suggest", {"q": ""}).json()["suggestions"] == []
    html = Client().get("/").content.decode()
    assert 'list="site-search-suggestions"' in html and 'data-suggest-url="/find/suggest"' in html


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
