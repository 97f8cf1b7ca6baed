"""GET /search/{term}/library: the caller's own Things, drafts included, each with `type: "thing"`."""
import pytest

from tests.support.api import assert_error, ids
from apps.search.tests.helpers import SHORT_THING_KEYS, indexed_thing

pytestmark = pytest.mark.django_db


def test_it_finds_own_published_and_unpublished_things(api, user, other_user):
    draft = indexed_thing(name="Draft bracket", creator=user, is_published=False)
    published = indexed_thing(name="Bracket", creator=user)
    indexed_thing(name="Bracket", creator=other_user)
    response = api.get("/search/bracket/library")
    body = response.json()
    assert [item["id"] for item in body] == [published.pk, draft.pk]
    assert set(body[0]) == SHORT_THING_KEYS | {"type"}
    assert {item["type"] for item in body} == {"thing"}
    assert body[1]["is_published"] is False


def test_without_a_term_it_lists_the_whole_library_newest_first(api, user, other_user):
    first = indexed_thing(name="Gear", creator=user, is_published=False)
    second = indexed_thing(name="Hook", creator=user)
    indexed_thing(name="Hook", creator=other_user)
    assert ids(api.get("/search//library")) == [second.pk, first.pk]


def test_a_term_matching_none_of_own_things_is_404(api, user, other_user):
    indexed_thing(name="Gear", description="", creator=user)
    indexed_thing(name="Bracket", creator=other_user)
    assert_error(api.get("/search/bracket/library"), 404, "NOT_FOUND")


def test_an_empty_library_is_404(api):
    assert_error(api.get("/search//library"), 404, "NOT_FOUND")


def test_filters_and_sorts_apply(api, user):
    liked = indexed_thing(name="Gear", creator=user, like_count=5, license="gpl")
    indexed_thing(name="Gear", creator=user, license="cc")
    assert ids(api.get("/search/gear/library", {"license": "gpl"})) == [liked.pk]
    assert ids(api.get("/search/gear/library", {"sort": "likes"}))[0] == liked.pk


def test_only_things_can_be_searched_in_the_library(api):
    body = assert_error(api.get("/search/gear/library", {"type": "users"}), 400, "VALIDATION_FAILED")
    assert "type" in body["errors"]


def test_search_library_without_the_empty_segment_is_a_search_for_the_word(api, user):
    # `/search/library` is GET /search/{term}/ with term "library", not the library.
    thing = indexed_thing(name="Library shelf")
    indexed_thing(name="Gear", creator=user)
    assert ids(api.get("/search/library")) == [thing.pk]


@pytest.mark.parametrize("rows", [1, 30])
def test_the_query_count_is_constant(api, user, rows, django_assert_num_queries):
    for n in range(rows):
        indexed_thing(name=f"Gear {n}", creator=user, is_published=n % 2 == 0)
    api.get("/search/gear/library")
    # token lookup, COUNT, the page
    with django_assert_num_queries(3):
        response = api.get("/search/gear/library")
    assert len(response.json()) == rows
