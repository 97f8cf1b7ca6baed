"""GET /things/{id}/categories (spec §4.2; docs/decisions.md Category shape): the category, then its parent."""
import pytest

from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db


def test_it_lists_the_category_then_its_parent_with_published_counts(api, other_user):
    thing = ThingFactory(creator=other_user, category=category("replacement-parts"))
    ThingFactory(creator=other_user, category=category("decor"))
    ThingFactory(creator=other_user, category=category("decor"), is_published=False)
    response = api.get(f"/things/{thing.pk}/categories")
    assert response.status_code == 200
    body = response.json()
    assert body[0] == {
        "name": "Replacement Parts",
        "slug": "replacement-parts",
        "url": "http://testserver/categories/replacement-parts",
        "count": 1,
        "things_url": "http://testserver/categories/replacement-parts/things",
        "thumbnail": "http://testserver/static/things/placeholder.png",
    }
    assert (body[1]["slug"], body[1]["count"]) == ("household", 2)  # its own and its children's


def test_a_top_level_category_is_alone_and_none_is_empty(api, other_user):
    top_level = ThingFactory(creator=other_user, category=category("art"))
    assert [c["slug"] for c in api.get(f"/things/{top_level.pk}/categories").json()] == ["art"]
    assert api.get(f"/things/{ThingFactory(creator=other_user).pk}/categories").json() == []


def test_query_count(api, other_user, django_assert_num_queries):
    thing = ThingFactory(creator=other_user, category=category("replacement-parts"))
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing with its category; COUNT; SELECT categories with their counted subquery
    with django_assert_num_queries(4):
        assert len(api.get(f"/things/{thing.pk}/categories").json()) == 2
