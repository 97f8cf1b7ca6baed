"""The quick start's SQLite search stems and suggests as PostgreSQL's does (issue 26; the PostgreSQL side is
test_forgiving_search.py). It runs a quick-start process on its own SQLite file, not the test database: a
`long` test (tests/support/ordering.py)."""
import pytest

from tests.support.quickstart import quickstart_shell

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
    result = quickstart_shell(quickstart_run_dir, SQLITE_SCRIPT)
    out = result.stdout
    assert "FOUND ['Parametric Shelf Bracket']" in out
    assert "SUGGEST calibration" in out
    assert "AFTER ['Benchy boats']" in out  # the triggers keep the index current
