"""GET /search/{tag}/tag: published Things carrying the tag (normalised as spec §2)."""
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide
from tests.support.api import assert_error, ids
from apps.search.tests.helpers import SHORT_THING_KEYS, indexed_thing
from apps.things import services as thing_services
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def test_it_lists_published_things_with_the_tag_newest_first(api, user):
    older = ThingFactory(tags=["wall_mount"])
    newer = ThingFactory(tags=["other", "wall_mount"])
    ThingFactory(tags=["wall_mount"], creator=user, is_published=False)
    ThingFactory(tags=["wall"])
    response = api.get("/search/wall_mount/tag")
    assert ids(response) == [newer.pk, older.pk]
    assert set(response.json()[0]) == SHORT_THING_KEYS


def test_the_tag_is_normalised_and_matched_ignoring_case(api):
    thing = ThingFactory(tags=["Wall_Mount"])
    assert ids(api.get("/search/wall%20mount/tag")) == [thing.pk]
    assert ids(api.get("/search/WALL_MOUNT!/tag")) == [thing.pk]


def test_it_does_not_need_the_search_vector(api):
    # Tag search reads the tag relation, not the text index.
    thing = ThingFactory(tags=["gear"])
    assert ids(api.get("/search/gear/tag")) == [thing.pk]


def test_an_unknown_tag_is_404(api):
    ThingFactory(tags=["gear"])
    assert_error(api.get("/search/zeppelin/tag"), 404, "NOT_FOUND")


def test_a_tag_only_drafts_carry_is_404(api, user):
    ThingFactory(tags=["secret"], creator=user, is_published=False)
    assert_error(api.get("/search/secret/tag"), 404, "NOT_FOUND")


def test_a_tag_of_only_punctuation_is_404(api):
    ThingFactory(tags=["gear"])
    assert_error(api.get("/search/!!!/tag"), 404, "NOT_FOUND")


def test_without_a_tag_it_lists_every_published_thing(api):
    thing = indexed_thing(name="Gear")
    assert ids(api.get("/search//tag")) == [thing.pk]


def test_filters_and_sorts_apply(api):
    liked = ThingFactory(tags=["gear"], like_count=3, license="gpl")
    plain = ThingFactory(tags=["gear"], license="cc")
    assert ids(api.get("/search/gear/tag", {"license": "gpl"})) == [liked.pk]
    assert ids(api.get("/search/gear/tag", {"sort": "likes"})) == [liked.pk, plain.pk]
    assert_error(api.get("/search/gear/tag", {"sort": "nope"}), 400, "VALIDATION_FAILED")


@pytest.mark.parametrize("rows", [1, 30])
@pytest.mark.parametrize("sort, statements", [("newest", 3), ("likes", 4)])
def test_the_query_count_is_constant(api, rows, sort, statements, django_assert_num_queries):
    for _ in range(rows):
        ThingFactory(tags=["gear", "hook"])
    api.get("/search/gear/tag", {"sort": sort})
    # token lookup, the tag with its kept count (the total), the page: newest first one walk of the
    # tag's own index with its Things; by likes (a rare tag, its Things read first) the page's ids, then
    # their Things
    with django_assert_num_queries(statements):
        response = api.get("/search/gear/tag", {"sort": sort})
    assert len(response.json()) == rows


# --- how a page is read (apps.search.selectors.thing_search_by_tag) ------------------------------------
# Unfiltered, the tag's kept count is the total and a page reads only its own ids; a tag carried by more
# than TAG_READ_FIRST_MAX Things is read with its id as a value (PostgreSQL walks the order's index),
# a rarer one as a subquery (its Things first). Both must give the same pages, in every order.

def hit_ids(response) -> list[int]:
    return [hit["id"] for hit in response.json()["hits"]]


def last_page(response) -> int:
    found = re.search(r'[?&]page=(\d+)[^>]*>; rel="last"', response["Link"])
    assert found is not None, response["Link"]
    return int(found.group(1))


ORDERS = {
    "newest": lambda t: (t.added, t.pk),
    "relevant": lambda t: (t.added, t.pk),  # without a term there is nothing to rank by
    "likes": lambda t: (t.like_count, t.pk),
    "popular": lambda t: (t.like_count + t.make_count + t.download_count, t.pk),
}


@pytest.mark.parametrize("read_first_max", [0, 10_000], ids=["id-as-value", "tag-read-first"])
@pytest.mark.parametrize("sort", sorted(ORDERS))
def test_pages_are_slices_of_one_order_however_the_tag_is_read(api, monkeypatch, read_first_max, sort):
    monkeypatch.setattr("apps.search.selectors.TAG_READ_FIRST_MAX", read_first_max)
    tagged = [ThingFactory(tags=["gear"], like_count=n % 3, make_count=n % 2, download_count=n) for n in range(7)]
    ThingFactory(tags=["other"], like_count=9)
    ThingFactory(tags=["gear"], is_published=False)
    expected = [t.pk for t in sorted(tagged, key=ORDERS[sort], reverse=True)]
    pages = [api.get("/search/gear/tag", {"sort": sort, "per_page": 3, "page": page}) for page in (1, 2, 3)]
    assert [pk for response in pages for pk in ids(response)] == expected
    assert last_page(pages[0]) == 3
    assert api.get("/search/gear/tag", {"sort": sort, "type": "things"}).json()["total"] == 7


@pytest.mark.parametrize("read_first_max", [0, 10_000], ids=["id-as-value", "tag-read-first"])
def test_an_unfiltered_tag_search_stops_at_the_result_window(api, monkeypatch, read_first_max):
    monkeypatch.setattr("apps.search.selectors.TAG_READ_FIRST_MAX", read_first_max)
    monkeypatch.setattr("apps.search.selectors.RESULT_WINDOW", 4)
    things = ThingFactory.create_batch(6, tags=["gear"])
    newest = sorted(things, key=lambda t: (t.added, t.pk), reverse=True)
    response = api.get("/search/gear/tag", {"per_page": 3, "page": 2, "type": "things"})
    assert response.json()["total"] == 4
    assert hit_ids(response) == [newest[3].pk]
    assert last_page(response) == 2


@pytest.mark.parametrize("read_first_max", [0, 10_000], ids=["id-as-value", "tag-read-first"])
def test_a_hidden_thing_leaves_the_page_and_the_total_at_once_even_written_behind_the_services(
    api, monkeypatch, read_first_max
):
    # The total is the tag's count, which the database's triggers keep (apps.things.counts): a write
    # that bypasses the services moves it too.
    monkeypatch.setattr("apps.search.selectors.TAG_READ_FIRST_MAX", read_first_max)
    kept, hidden = ThingFactory(tags=["gear"]), ThingFactory(tags=["gear"])
    assert api.get("/search/gear/tag", {"type": "things"}).json()["total"] == 2
    Thing.objects.filter(pk=hidden.pk).update(is_hidden=True)
    response = api.get("/search/gear/tag", {"type": "things"})
    assert response.json()["total"] == 1
    assert hit_ids(response) == [kept.pk]


def test_staff_see_hidden_things_and_count_them(client_for, api):
    staff_api = client_for(UserFactory(is_staff=True))
    shown, hidden = ThingFactory(tags=["gear"]), ThingFactory(tags=["gear"], is_hidden=True)
    assert set(ids(staff_api.get("/search/gear/tag"))) == {shown.pk, hidden.pk}
    assert staff_api.get("/search/gear/tag", {"type": "things"}).json()["total"] == 2
    assert ids(api.get("/search/gear/tag")) == [shown.pk]


def _tag_window_statements(api, **params) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = api.get("/search/gear/tag", params)
    assert response.status_code in (200, 404)
    return sum(1 for q in captured.captured_queries if "things_thingtag" in q["sql"] and "LIMIT 500" in q["sql"])


def test_a_filtered_tag_window_is_kept_and_a_retag_or_a_hide_shows_at_once(api, other_user):
    first = indexed_thing(name="Gear one", tags=["gear"], license="gpl")
    ThingFactory(tags=["gear"], license="cc")
    assert _tag_window_statements(api, license="gpl") == 1
    assert _tag_window_statements(api, license="gpl") == 0  # the kept window
    assert _tag_window_statements(api, license="cc") == 1  # each filter its own
    second = indexed_thing(name="Gear two", tags=["wheel"], license="gpl", creator=other_user)
    thing_services.thing_update(thing=second, data={"tags": ["wheel", "gear"]})
    assert set(ids(api.get("/search/gear/tag", {"license": "gpl"}))) == {first.pk, second.pk}
    moderation_hide(obj=first, reason="spam", by=UserFactory(is_staff=True))
    thing_services.thing_hidden_changed(thing=first)
    response = api.get("/search/gear/tag", {"license": "gpl", "type": "things"})
    assert hit_ids(response) == [second.pk]
    assert response.json()["total"] == 1


def test_a_filtered_tag_window_is_never_kept_for_staff(client_for):
    staff_api = client_for(UserFactory(is_staff=True))
    ThingFactory(tags=["gear"], license="gpl")
    staff_api.get("/search/gear/tag", {"license": "gpl"})
    assert _tag_window_statements(staff_api, license="gpl") == 1


@pytest.mark.parametrize("read_first_max", [0, 10_000], ids=["id-as-value", "tag-read-first"])
def test_both_wire_versions_page_by_the_kept_count(api, monkeypatch, read_first_max):
    # `thingiverse` (docs/decisions.md: Wire versions): always `{total, hits}`, and no match is an empty
    # one; `spec`: the bare array and a 404.
    monkeypatch.setattr("apps.search.selectors.TAG_READ_FIRST_MAX", read_first_max)
    things = ThingFactory.create_batch(5, tags=["gear"])
    newest = [t.pk for t in sorted(things, key=lambda t: (t.added, t.pk), reverse=True)]
    live = {"HTTP_THINGYARD_VERSION": "thingiverse"}
    for sort in ("newest", "likes"):
        page = api.get("/search/gear/tag", {"per_page": 2, "page": 3, "sort": sort}, **live)
        assert page.json()["total"] == 5 and len(page.json()["hits"]) == 1
        assert last_page(page) == 3
    assert hit_ids(api.get("/search/gear/tag", {"per_page": 2}, **live)) == newest[:2]
    assert api.get("/search/zeppelin/tag", **live).json() == {"total": 0, "hits": []}
    assert ids(api.get("/search/gear/tag", {"per_page": 2, "page": 2})) == newest[2:4]
    assert_error(api.get("/search/zeppelin/tag"), 404, "NOT_FOUND")
