"""GET /search/{tag}/tag: published Things carrying the tag (normalised as spec §2)."""
import pytest

from tests.support.api import assert_error, ids
from apps.search.tests.helpers import SHORT_THING_KEYS, indexed_thing
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
def test_the_query_count_is_constant(api, rows, django_assert_num_queries):
    for _ in range(rows):
        ThingFactory(tags=["gear", "hook"])
    api.get("/search/gear/tag")
    # token lookup, COUNT, the page (the tag resolved in a subquery of each)
    with django_assert_num_queries(3):
        response = api.get("/search/gear/tag")
    assert len(response.json()) == rows
