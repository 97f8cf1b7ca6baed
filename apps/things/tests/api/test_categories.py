"""GET /categories/, /categories/{slug}/, /categories/{slug}/things (spec §4.7, docs/decisions.md: Category)."""
import pytest

from tests.support.api import assert_error, assert_unauthorized
from apps.things.categories import CATEGORY_TREE
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db

CATEGORY_KEYS = {"name", "slug", "url", "count", "things_url", "thumbnail", "parent"}
SHORT_THING_KEYS = {
    "id", "name", "url", "public_url", "thumbnail", "creator", "is_published", "is_wip", "like_count",
    "added",
}
ALL_CATEGORIES = len(CATEGORY_TREE) + sum(len(children) for children in CATEGORY_TREE.values())


def test_the_list_is_every_category_in_tree_order(api):
    response = api.get("/categories/", {"per_page": 100})
    assert response.status_code == 200
    body = response.json()
    assert len(body) == ALL_CATEGORIES
    assert set(body[0]) == CATEGORY_KEYS
    expected: list[tuple[str, str | None]] = []
    for top, children in CATEGORY_TREE.items():
        expected.append((top, None))
        expected += [(child, top) for child in children]
    names = {c["slug"]: c["name"] for c in body}
    assert [(c["name"], names[c["parent"]] if c["parent"] else None) for c in body] == expected


def test_the_list_is_paginated_with_link_headers(api):
    response = api.get("/categories/")
    assert len(response.json()) == 30
    link = response["Link"]
    assert 'rel="next"' in link and 'rel="last"' in link and "page=2" in link
    assert link.startswith("<http://testserver/categories/")


def test_a_category_shows_its_fields(api):
    response = api.get("/categories/replacement-parts/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == CATEGORY_KEYS
    assert body["name"] == "Replacement Parts"
    assert body["slug"] == "replacement-parts"
    assert body["parent"] == "household"
    assert body["count"] == 0
    assert body["things_url"].endswith("/categories/replacement-parts/things")
    assert body["url"].startswith("http://testserver/categories/replacement-parts")
    assert body["thumbnail"].startswith("http")


def test_a_top_level_category_has_no_parent(api):
    assert api.get("/categories/household/").json()["parent"] is None


def test_the_slug_rule_applies_to_the_path(api):
    # spec §2: the slug is the lower-case name with dashes, so the name itself finds the category.
    assert api.get("/categories/Replacement Parts/").json()["slug"] == "replacement-parts"
    assert api.get("/categories/REPLACEMENT-PARTS").json()["slug"] == "replacement-parts"


def test_an_unknown_category_is_404(api):
    assert_error(api.get("/categories/no-such-thing/"), 404, "NOT_FOUND")
    assert_error(api.get("/categories/no-such-thing/things"), 404, "NOT_FOUND")


def test_counts_include_sub_categories_and_only_published_things(api):
    ThingFactory.create_batch(2, category=category("robotics"))
    ThingFactory(category=category("electronics"))
    ThingFactory(category=category("hobby"))
    ThingFactory(category=category("robotics"), is_published=False, published_at=None)
    ThingFactory(category=category("robotics")).delete()
    ThingFactory(category=category("kitchen-dining"))

    counts = {c["slug"]: c["count"] for c in api.get("/categories/", {"per_page": 100}).json()}
    assert counts["robotics"] == 2
    assert counts["electronics"] == 1
    assert counts["hobby"] == 4  # its own Thing and its children's
    assert counts["household"] == 1
    assert counts["art"] == 0
    assert api.get("/categories/hobby/").json()["count"] == 4
    assert api.get("/categories/robotics/").json()["count"] == 2


def test_a_sub_category_lists_its_published_things_newest_first(api):
    older, newer = ThingFactory.create_batch(2, category=category("robotics"))
    ThingFactory(category=category("robotics"), is_published=False, published_at=None)
    ThingFactory(category=category("electronics"))
    response = api.get("/categories/robotics/things")
    assert response.status_code == 200
    body = response.json()
    assert [t["id"] for t in body] == [newer.pk, older.pk]
    assert set(body[0]) == SHORT_THING_KEYS
    assert "Link" in response


def test_a_top_level_category_lists_its_childrens_things_too(api):
    own = ThingFactory(category=category("hobby"))
    child = ThingFactory(category=category("robotics"))
    other_child = ThingFactory(category=category("music"))
    ThingFactory(category=category("kitchen-dining"))
    ThingFactory(category=None)
    ids = [t["id"] for t in api.get("/categories/hobby/things").json()]
    assert ids == [other_child.pk, child.pk, own.pk]


def test_things_with_the_same_added_time_are_ordered_by_id(api):
    things = ThingFactory.create_batch(3, category=category("robotics"))
    Thing.objects.update(added=things[0].added)
    ids = [t["id"] for t in api.get("/categories/robotics/things").json()]
    assert ids == sorted((t.pk for t in things), reverse=True)


def test_an_empty_category_lists_nothing(api):
    response = api.get("/categories/chess/things")
    assert response.status_code == 200
    assert response.json() == []


@pytest.mark.parametrize(
    "path",
    ["/categories/", "/categories/robotics/", "/categories/robotics/things", "/categories/nope/things"],
)
def test_anonymous_is_401(anon_client, path):
    assert_unauthorized(anon_client.get(path))


@pytest.mark.parametrize("rows", [1, 30])
def test_the_list_query_count_does_not_grow_with_things(api, rows, django_assert_num_queries):
    for slug in ("robotics", "music", "hobby"):
        ThingFactory.create_batch(rows, category=category(slug))
    api.get("/categories/")  # warm-up: the once-per-5-minutes last_active write
    # 1: the token with its user and application; 2: COUNT; 3: the page with parents and counts.
    with django_assert_num_queries(3):
        assert api.get("/categories/").status_code == 200


@pytest.mark.parametrize("rows", [1, 30])
def test_the_detail_query_count_does_not_grow_with_things(api, rows, django_assert_num_queries):
    ThingFactory.create_batch(rows, category=category("robotics"))
    api.get("/categories/hobby/")
    # 1: the token; 2: the category with its parent and count.
    with django_assert_num_queries(2):
        assert api.get("/categories/hobby/").json()["count"] == rows


@pytest.mark.parametrize("rows", [1, 30])
def test_the_things_query_count_does_not_grow_with_things(api, rows, django_assert_num_queries):
    ThingFactory.create_batch(rows, category=category("robotics"))
    api.get("/categories/hobby/things")
    # 1: the token; 2: the category with its kept count (the list's total: no COUNT); 3: the page of
    # Things with creators.
    with django_assert_num_queries(3):
        response = api.get("/categories/hobby/things?per_page=1")
    assert len(response.json()) == 1
    assert f'page={rows}&per_page=1>; rel="last"' in response["Link"]
