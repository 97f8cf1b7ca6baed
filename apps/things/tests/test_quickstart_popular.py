"""/popular/'s statement (the window's likes joined and counted per Thing, the candidates of a page) and its
pages (PopularPages) run on the quick start's SQLite as on PostgreSQL (apps.things.selectors). It runs a
quick-start process on its own SQLite file, not the test database: a `long` test
(tests/support/ordering.py)."""
import pytest

from tests.support.quickstart import quickstart_shell

SQLITE_SCRIPT = """
from datetime import timedelta
from django.utils import timezone
from apps.accounts.models import User
from apps.things.models import Like, Thing
from apps.things.selectors import PopularPages, thing_list_popular
maker = User.objects.create_user(username="maker", password="x")
fans = [User.objects.create_user(username=f"fan{n}", password="x") for n in range(5)]
def thing(name, downloads):
    return Thing.objects.create(creator=maker, name=name, description="", is_published=True, license="cc-sa",
                                download_count=downloads)
mixed, downloaded, unliked = thing("mixed", 0), thing("downloaded", 25), thing("unliked", 15)
for n, fan in enumerate(fans):  # two likes in the window, three before it
    like = Like.objects.create(user=fan, thing=mixed)
    Like.objects.filter(pk=like.pk).update(created=timezone.now() - timedelta(days=2 if n < 2 else 45))
print("WHOLE", [t.name for t in thing_list_popular(viewer=None)])
print("FIRST", [t.name for t in thing_list_popular(viewer=None, within=2)[:2]])
pages = PopularPages(now=timezone.now())
print("PAGES", [[t.name for t in pages[start:start + 1]] for start in range(4)], [t.name for t in pages[1:3]])
"""


@pytest.mark.long
def test_popular_ranks_on_the_quick_starts_sqlite_as_on_postgresql(quickstart_run_dir):
    out = quickstart_shell(quickstart_run_dir, SQLITE_SCRIPT).stdout
    assert "WHOLE ['downloaded', 'mixed', 'unliked']" in out
    assert "FIRST ['downloaded', 'mixed']" in out
    # Page by page (apps.things.selectors.PopularPages: the liked Thing merged with the lifetime index's run).
    assert "PAGES [['downloaded'], ['mixed'], ['unliked'], []] ['mixed', 'unliked']" in out
