"""DECISIONS.md (compat): a `+` in a search term or tag path segment is a space (Requests), and search
answers the modern `{total, hits}` when the request names `type`, the spec's array otherwise, with the
same paging and 404 on no match either way (Search shape)."""
import pytest

from apps.accounts.tests.factories import UserFactory
from apps.makes.tests.factories import MakeFactory
from apps.search.tests.helpers import indexed_thing
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def ids(body) -> list[int]:
    return [item["id"] for item in body]


# --- `+` is a space ---------------------------------------------------------------------------------


@pytest.fixture
def shelf_bracket(user):
    indexed_thing(name="Shelf support", description="Strong.")  # "shelf" alone: not both words
    return indexed_thing(name="Shelf bracket", creator=user, tags=["wall_mount"])


@pytest.mark.parametrize("path", [
    "/search/shelf+bracket/",
    "/search/shelf+bracket",
    "/search/shelf%2Bbracket/",  # percent-encoded `+`: the server decoded it before routing (no literal plus)
    "/users/{username}/search/shelf+bracket",
    "/search/shelf+bracket/library",
])
def test_a_plus_in_a_search_term_is_a_space(api, user, shelf_bracket, path):
    response = api.get(path.format(username=user.username))
    assert response.status_code == 200, response.content
    assert ids(response.json()) == [shelf_bracket.pk]


def test_a_plus_in_an_autocomplete_term_is_a_space(api, shelf_bracket):
    body = api.get("/search/shelf+br/autocomplete").json()
    assert [(item["type"], item["id"]) for item in body] == [("thing", shelf_bracket.pk)]


@pytest.mark.parametrize("path", ["/tags/wall+mount/things", "/search/wall+mount/tag"])
def test_a_plus_in_a_tag_segment_is_a_space_which_normalises_to_an_underscore(api, shelf_bracket, path):
    response = api.get(path)
    assert response.status_code == 200, response.content
    assert ids(response.json()) == [shelf_bracket.pk]


def test_a_tag_detail_reads_the_plus_as_a_space(api, shelf_bracket):
    assert api.get("/tags/wall+mount/").json()["name"] == "wall_mount"


def test_the_plus_never_reaches_other_segments(api, user):
    # Only term and tag segments are form-encoded by clients; a user name keeps its characters.
    assert api.get("/users/no+such+user/").status_code == 404


# --- {total, hits} when `type` is named --------------------------------------------------------------


@pytest.fixture
def five_brackets():
    return [indexed_thing(name=f"Bracket {n}", like_count=n) for n in range(5)]


def test_without_type_the_answer_is_the_spec_array(api, five_brackets):
    response = api.get("/search/bracket/", {"per_page": 2})
    assert isinstance(response.json(), list) and len(response.json()) == 2


def test_with_type_the_answer_is_total_and_hits_with_the_same_paging(api, five_brackets):
    plain = api.get("/search/bracket/", {"per_page": 2, "page": 2})
    typed = api.get("/search/bracket/", {"type": "things", "per_page": 2, "page": 2})

    assert typed.status_code == 200
    assert typed.json() == {"total": 5, "hits": plain.json()}
    links = typed["Link"].split(", ")
    assert [link.split("; ")[1] for link in links] == ['rel="first"', 'rel="prev"', 'rel="next"', 'rel="last"']
    assert all("type=things" in link and "per_page=2" in link for link in links)
    assert [link.split("; ")[0].replace("&type=things", "") for link in links] == [
        link.split("; ")[0] for link in plain["Link"].split(", ")
    ]
    last = api.get("/search/bracket/", {"type": "things", "per_page": 2, "page": 3}).json()
    assert (last["total"], len(last["hits"])) == (5, 1)


def test_an_empty_type_counts_as_absent(api, five_brackets):
    assert isinstance(api.get("/search/bracket/", {"type": ""}).json(), list)


@pytest.mark.parametrize("params", [{}, {"type": "things"}, {"type": "users"}, {"type": "collections"},
                                    {"type": "makes"}])
def test_no_match_is_404_either_way(api, params):
    response = api.get("/search/nothing-like-this/", params)
    assert (response.status_code, response.json()["type"]) == (404, "NOT_FOUND")


def test_type_users_collections_and_makes_answer_their_objects(api, user):
    maker = UserFactory(username="hookmaker", bio="")
    collection = CollectionFactory(name="Hook ideas")
    CollectionThingFactory(collection=collection)
    make = MakeFactory(thing=ThingFactory(name="Towel hook"), description="Printed in PETG.")

    users = api.get("/search/hookmaker/", {"type": "users"}).json()
    collections = api.get("/search/hook/", {"type": "collections"}).json()
    makes = api.get("/search/hook/", {"type": "makes"}).json()

    assert (users["total"], ids(users["hits"])) == (1, [maker.pk])
    assert (collections["total"], ids(collections["hits"])) == (1, [collection.pk])
    assert collections["hits"][0]["featured_thing_id"] is not None  # the page's thumbnails are attached
    assert (makes["total"], ids(makes["hits"])) == (1, [make.pk])
    assert makes["hits"][0]["thing"]["name"] == "Towel hook"


@pytest.mark.parametrize("path", ["/users/{username}/search/bracket", "/search/bracket/library",
                                  "/search/bracket/tag"])
def test_the_things_only_searches_answer_total_and_hits_under_type_too(api, user, path):
    indexed_thing(name="Bracket", creator=user, tags=["bracket"])
    body = api.get(path.format(username=user.username), {"type": "things"}).json()
    assert set(body) == {"total", "hits"} and body["total"] == len(body["hits"]) == 1
    assert isinstance(api.get(path.format(username=user.username)).json(), list)
