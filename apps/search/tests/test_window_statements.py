"""The window statements of term searches (selectors._window_query): exact results whichever way the
window is found, and never more than two statements (issue 17: no plan walks the whole table)."""
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.search import selectors
from tests.support.api import ids
from apps.search.tests.helpers import indexed_thing

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_window_cache(settings):
    settings.SEARCH_WINDOW_CACHE_SECONDS = 0


def window_statements(api, path, **params) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = api.get(path, params)
    return response, [q["sql"] for q in captured.captured_queries if "search_thing" in q["sql"]]


@pytest.mark.parametrize("term", ['"wall bracket"', "snap-fit", "bracket -shelf"])
def test_a_term_postgresql_misjudges_is_walked_within_a_bound_first(api, term):
    indexed_thing(name="Snap-fit wall bracket", description="")
    _, statements = window_statements(api, f"/search/{term}/")
    assert f"LIMIT {selectors.SAMPLE_ROWS}" in statements[0]  # the sample
    # One match in the sample promises no window within WALK_ROWS_MAX rows: the GIN-first statement.
    assert len(statements) == 2 and "+ 0 DESC" in statements[1]


def test_a_plain_term_is_one_statement(api):
    indexed_thing(name="Wall bracket")
    _, statements = window_statements(api, "/search/wall bracket/")
    assert len(statements) == 1 and "LIMIT 500" in statements[0]


def test_the_walk_answers_alone_when_its_rows_hold_a_whole_window(api, monkeypatch):
    monkeypatch.setattr(selectors, "RESULT_WINDOW", 2)
    things = [indexed_thing(name="Snap-fit clip", like_count=n) for n in range(3)]
    response, statements = window_statements(api, "/search/snap-fit/", sort="likes")
    assert len(statements) == 1
    assert ids(response) == [things[2].pk, things[1].pk]


def test_a_promising_sample_walks_on_within_the_bound(api, monkeypatch):
    monkeypatch.setattr(selectors, "RESULT_WINDOW", 3)
    monkeypatch.setattr(selectors, "SAMPLE_ROWS", 2)
    things = [indexed_thing(name="Snap-fit clip" if n % 2 else "Shelf", like_count=n) for n in range(8)]
    response, statements = window_statements(api, "/search/snap-fit/", sort="likes")
    # 1 match in 2 rows: a window of 3 within 2 × 3 × 1.5 = 9 rows; the walk finds it.
    assert len(statements) == 2 and "LIMIT 9" in statements[1]
    assert ids(response) == [things[7].pk, things[5].pk, things[3].pk]


def test_a_match_beyond_the_walked_rows_is_still_found(api, monkeypatch):
    monkeypatch.setattr(selectors, "SAMPLE_ROWS", 2)
    rare = indexed_thing(name="Snap-fit hinge", like_count=0)
    for n in range(3):
        indexed_thing(name="Shelf", like_count=10 + n)  # the walk's rows: the most liked, no match
    assert ids(api.get("/search/snap-fit/")) == [rare.pk]


def test_a_phrase_matches_adjacent_words_only(api):
    adjacent = indexed_thing(name="Wall bracket")
    indexed_thing(name="Bracket for the wall")
    assert ids(api.get('/search/"wall bracket"/')) == [adjacent.pk]


def test_an_exclusion_of_the_term_itself_matches_nothing(api):
    indexed_thing(name="Dragon")
    response, statements = window_statements(api, "/search/dragon -dragon/")
    assert response.status_code == 404 and len(statements) == 2


@pytest.mark.parametrize("sort", ["relevant", "likes", "popular", "newest"])
def test_both_statements_order_the_same_way(api, sort, monkeypatch):
    things = [indexed_thing(name="Snap-fit clip", like_count=n, download_count=3 - n) for n in range(3)]
    walked = ids(api.get("/search/snap-fit/", {"sort": sort}))
    monkeypatch.setattr(selectors, "SAMPLE_ROWS", 1)  # sample, a short walk, then GIN-first
    assert ids(api.get("/search/snap-fit/", {"sort": sort})) == walked
    assert sorted(walked) == sorted(t.pk for t in things)
