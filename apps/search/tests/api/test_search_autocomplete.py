"""GET /search/{term}/autocomplete: tag and published Thing names starting with the term."""
import pytest

from tests.support.api import assert_error
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def test_it_answers_tags_then_things_whose_name_starts_with_the_term(api):
    thing = ThingFactory(name="Bracket for shelves", tags=["brackets"])
    ThingFactory(name="Shelf bracket")  # "bracket" inside the name: not a prefix
    response = api.get("/search/bra/autocomplete")
    assert response.status_code == 200
    assert response.json() == [
        {"type": "tag", "id": "brackets", "name": "brackets", "url": "http://testserver/tags/brackets"},
        {"type": "thing", "id": thing.pk, "name": "Bracket for shelves",
         "url": f"http://testserver/thing:{thing.pk}"},
    ]


def test_the_prefix_ignores_case_and_orders_by_name(api):
    b = ThingFactory(name="bracket B")
    a = ThingFactory(name="BRACKET a")
    c = ThingFactory(name="Bracket c")
    body = api.get("/search/BrAcK/autocomplete").json()
    assert [item["id"] for item in body] == [a.pk, b.pk, c.pk]


def test_a_prefix_with_a_space_matches_names_and_underscored_tags(api):
    thing = ThingFactory(name="Wall mount for a drill", tags=["wall_mount"])
    body = api.get("/search/wall%20mo/autocomplete").json()
    assert [(item["type"], item["id"]) for item in body] == [("tag", "wall_mount"), ("thing", thing.pk)]


def test_like_wildcards_in_the_term_are_literal(api):
    ThingFactory(name="Bracket", tags=["bracket"])
    assert_error(api.get("/search/%25/autocomplete"), 404, "NOT_FOUND")
    assert_error(api.get("/search/_/autocomplete"), 404, "NOT_FOUND")


def test_unpublished_things_and_their_only_tags_stay_hidden(api, user):
    ThingFactory(name="Secret gadget", tags=["secretive"], creator=user, is_published=False)
    assert_error(api.get("/search/secret/autocomplete"), 404, "NOT_FOUND")


def test_at_most_ten_items_by_default_half_of_them_tags_when_both_abound(api):
    for n in range(12):
        ThingFactory(name=f"Gear {n:02}", tags=[f"gear{n:02}"])
    body = api.get("/search/gear/autocomplete").json()
    assert len(body) == 10
    assert [item["type"] for item in body] == ["tag"] * 5 + ["thing"] * 5
    assert body[0]["id"] == "gear00"


def test_one_side_fills_the_slots_the_other_leaves(api):
    for n in range(12):
        ThingFactory(name=f"Gear {n:02}")
    ThingFactory(name="Hook", tags=["gearbox"])
    body = api.get("/search/gear/autocomplete").json()
    assert [item["type"] for item in body] == ["tag"] + ["thing"] * 9


def test_per_page_raises_the_limit_up_to_twenty(api):
    for n in range(25):
        ThingFactory(name=f"Gear {n:02}")
    assert len(api.get("/search/gear/autocomplete", {"per_page": 15}).json()) == 15
    assert len(api.get("/search/gear/autocomplete", {"per_page": 99}).json()) == 20
    assert len(api.get("/search/gear/autocomplete", {"per_page": 0}).json()) == 1


def test_a_non_numeric_per_page_is_400(api):
    body = assert_error(api.get("/search/gear/autocomplete", {"per_page": "x"}), 400, "VALIDATION_FAILED")
    assert "per_page" in body["errors"]


def test_the_term_is_required(api):
    ThingFactory(name="Gear")
    for path in ("/search//autocomplete", "/search/%20/autocomplete"):
        body = assert_error(api.get(path), 400, "VALIDATION_FAILED")
        assert "term" in body["errors"]


def test_nothing_starting_with_the_term_is_404(api):
    ThingFactory(name="Gear", tags=["gear"])
    assert_error(api.get("/search/zeppelin/autocomplete"), 404, "NOT_FOUND")


@pytest.mark.parametrize("rows", [1, 20])
def test_the_query_count_is_constant(api, rows, django_assert_num_queries):
    for n in range(rows):
        ThingFactory(name=f"Gear {n:02}", tags=[f"gear{n:02}"])
    api.get("/search/gear/autocomplete")
    # token lookup, tag names, Thing names
    with django_assert_num_queries(3):
        response = api.get("/search/gear/autocomplete", {"per_page": 20})
    assert len(response.json()) == min(20, rows * 2)
