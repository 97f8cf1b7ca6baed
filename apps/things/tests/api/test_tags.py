"""GET /tags/, /tags/{tag}/, /tags/{tag}/things (spec §4.7, §2 tag normalisation, docs/decisions.md: Tag)."""
import pytest

from tests.support.api import assert_error, assert_unauthorized
from apps.things.models import Thing
from apps.things.tests.factories import TagFactory, ThingFactory

pytestmark = pytest.mark.django_db

TAG_KEYS = {"name", "tag", "url", "count", "things_url"}


def test_the_list_is_alphabetical_ignoring_case(api):
    ThingFactory(tags=["zebra", "Apple"])
    ThingFactory(tags=["mango", "banana"])
    response = api.get("/tags/")
    assert response.status_code == 200
    body = response.json()
    assert [t["name"] for t in body] == ["Apple", "banana", "mango", "zebra"]
    assert set(body[0]) == TAG_KEYS


def test_the_list_holds_only_tags_of_published_things_with_exact_counts(api):
    ThingFactory.create_batch(2, tags=["shared"])
    ThingFactory(tags=["shared", "draft_too"], is_published=False, published_at=None)
    ThingFactory(tags=["draft_only"], is_published=False, published_at=None)
    ThingFactory(tags=["shared", "gone"]).delete()
    TagFactory(name="orphan")
    counts = {t["name"]: t["count"] for t in api.get("/tags/").json()}
    assert counts == {"shared": 2}


def test_the_list_is_paginated_with_link_headers(api):
    ThingFactory(tags=[f"tag{n:02}" for n in range(5)])
    response = api.get("/tags/", {"per_page": 2, "page": 2})
    assert [t["name"] for t in response.json()] == ["tag02", "tag03"]
    link = response["Link"]
    for rel in ("first", "prev", "next", "last"):
        assert f'rel="{rel}"' in link
    assert "per_page=2" in link and "page=3" in link


def test_a_tag_shows_its_fields(api):
    ThingFactory.create_batch(3, tags=["Robot_Arm"])
    response = api.get("/tags/Robot_Arm/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == TAG_KEYS
    assert body["name"] == "Robot_Arm"
    assert body["count"] == 3
    assert body["things_url"].endswith("/things")
    assert body["url"].startswith("http://testserver/tags/")


@pytest.mark.parametrize("segment", ["Robot Arm", "robot arm", "ROBOT_ARM", "Robot Arm!", "(Robot_Arm)"])
def test_the_path_is_normalised_and_matched_ignoring_case(api, segment):
    thing = ThingFactory(tags=["Robot_Arm"])
    assert api.get(f"/tags/{segment}/").json()["name"] == "Robot_Arm"
    assert [t["id"] for t in api.get(f"/tags/{segment}/things").json()] == [thing.pk]


def test_punctuation_is_removed_from_the_path(api):
    ThingFactory(tags=["benchy"])
    assert api.get("/tags/ben!chy/").json()["name"] == "benchy"
    assert api.get("/tags/benchy%3F/things").status_code == 200


def test_an_unknown_tag_is_404(api):
    assert_error(api.get("/tags/nothing-here/"), 404, "NOT_FOUND")
    assert_error(api.get("/tags/nothing-here/things"), 404, "NOT_FOUND")


def test_a_tag_that_normalises_to_nothing_is_404(api):
    assert_error(api.get("/tags/!!!/things"), 404, "NOT_FOUND")


def test_a_tag_only_drafts_carry_is_404(api):
    ThingFactory(tags=["secret"], is_published=False, published_at=None)
    assert_error(api.get("/tags/secret/"), 404)
    assert_error(api.get("/tags/secret/things"), 404)


def test_the_things_are_published_newest_first(api):
    older, newer = ThingFactory.create_batch(2, tags=["gear"])
    ThingFactory(tags=["gear"], is_published=False, published_at=None)
    ThingFactory(tags=["other"])
    response = api.get("/tags/gear/things")
    assert response.status_code == 200
    assert [t["id"] for t in response.json()] == [newer.pk, older.pk]
    assert "Link" in response


def test_things_with_the_same_added_time_are_ordered_by_id(api):
    things = ThingFactory.create_batch(3, tags=["gear"])
    Thing.objects.update(added=things[0].added)
    assert [t["id"] for t in api.get("/tags/gear/things").json()] == [t.pk for t in reversed(things)]


@pytest.mark.parametrize("path", ["/tags/", "/tags/gear/", "/tags/gear/things", "/tags/nope/things"])
def test_anonymous_is_401(anon_client, path):
    ThingFactory(tags=["gear"])
    assert_unauthorized(anon_client.get(path))


@pytest.mark.parametrize("rows", [1, 30])
def test_the_list_query_count_does_not_grow(api, rows, django_assert_num_queries):
    for n in range(rows):
        ThingFactory(tags=[f"tag{n}", "common"])
    api.get("/tags/")  # warm-up: the once-per-5-minutes last_active write
    # 1: the token; 2: COUNT; 3: the page of tags with their counts.
    with django_assert_num_queries(3):
        assert api.get("/tags/").status_code == 200


@pytest.mark.caches_off  # counts the uncached path's statements (the token cache would hide one)
@pytest.mark.parametrize("rows", [1, 30])
def test_the_things_query_count_does_not_grow(api, rows, django_assert_num_queries):
    ThingFactory.create_batch(rows, tags=["gear", "other"])
    api.get("/tags/gear/things")
    # 1: the token; 2: the tag with its kept count (the list's total: no COUNT); 3: the page of Things
    # with creators.
    with django_assert_num_queries(3):
        response = api.get("/tags/gear/things?per_page=1")
    assert len(response.json()) == 1
    assert f'page={rows}&per_page=1>; rel="last"' in response["Link"]
    with django_assert_num_queries(2):
        assert api.get("/tags/gear/").json()["count"] == rows


@pytest.mark.caches_off
@pytest.mark.parametrize("rows", [2, 30])
def test_a_deep_page_chosen_by_its_ids_costs_the_same_statements(api, rows, monkeypatch, django_assert_num_queries):
    from apps.things import selectors

    monkeypatch.setattr(selectors, "TAG_IDS_FIRST_FROM", 1)  # every page but the first chosen in the index
    things = ThingFactory.create_batch(rows, tags=["gear"])
    api.get("/tags/gear/things")
    # 1: the token; 2: the tag with its kept count; 3: the page's Things, their ids chosen in a subquery.
    with django_assert_num_queries(3):
        response = api.get(f"/tags/gear/things?per_page=1&page={rows}")
    assert [t["id"] for t in response.json()] == [things[0].pk]  # the oldest: the last page


@pytest.mark.parametrize("page", ["abc", "1.5x", "--2"])
def test_a_page_that_is_no_number_is_400_on_the_ids_path_too(api, page, monkeypatch):
    from apps.things import selectors

    monkeypatch.setattr(selectors, "TAG_IDS_FIRST_FROM", 1)
    ThingFactory.create_batch(3, tags=["gear"])
    assert_error(api.get("/tags/gear/things", {"per_page": 1, "page": page}), 400, "VALIDATION_FAILED")


@pytest.mark.parametrize("version", ["spec", "thingiverse"])
def test_a_page_past_the_end_is_the_last_page_on_the_ids_path_too(api, version, monkeypatch):
    from apps.things import selectors

    monkeypatch.setattr(selectors, "TAG_IDS_FIRST_FROM", 1)
    things = ThingFactory.create_batch(3, tags=["gear"])
    for page in (2, 3, 4, 10**30):
        response = api.get("/tags/gear/things", {"per_page": 1, "page": page}, HTTP_THINGYARD_VERSION=version)
        assert [t["id"] for t in response.json()] == [things[1 if page == 2 else 0].pk], page
