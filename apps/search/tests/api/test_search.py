"""GET /search/{term}/ (spec §4.7, §7): relevance-ranked Things, users, filters and sorts."""
from datetime import UTC, datetime

import pytest

from apps.accounts.tests.factories import UserFactory
from tests.support.api import assert_error, ids
from apps.search.services import thing_index_search
from apps.search.tests.helpers import SHORT_THING_KEYS, hit_ids, indexed_thing
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db


def test_it_answers_short_things_matching_the_term(api):
    thing = indexed_thing(name="Wall bracket")
    indexed_thing(name="Cable clip", description="Keeps cables tidy.")
    response = api.get("/search/bracket/")
    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body] == [thing.pk]
    assert set(body[0]) == SHORT_THING_KEYS
    assert body[0]["url"] == f"http://testserver/thing:{thing.pk}"
    assert body[0]["creator"]["name"] == thing.creator.username
    assert 'rel="first"' in response["Link"]


def test_a_name_match_outranks_a_tag_match_which_outranks_a_description_match(api):
    in_description = indexed_thing(name="Shelf", description="Holds a bracket.", like_count=50)
    in_tags = indexed_thing(name="Shelf support", description="Strong.", tags=["bracket"], like_count=20)
    in_name = indexed_thing(name="Corner bracket", description="Strong.")
    assert ids(api.get("/search/bracket/")) == [in_name.pk, in_tags.pk, in_description.pk]


def test_equal_relevance_is_ordered_by_likes_then_newest_id(api):
    first = indexed_thing(name="Gear", like_count=1)
    second = indexed_thing(name="Gear", like_count=1)
    popular = indexed_thing(name="Gear", like_count=9)
    assert ids(api.get("/search/gear")) == [popular.pk, second.pk, first.pk]


def test_it_stems_english_words(api):
    thing = indexed_thing(name="Bracket")
    assert ids(api.get("/search/brackets/")) == [thing.pk]
    assert ids(api.get("/search/Bracketing/")) == [thing.pk]


def test_a_term_may_hold_spaces_and_websearch_syntax(api):
    both = indexed_thing(name="Wall hook")
    hook = indexed_thing(name="Hook for towels")
    indexed_thing(name="Wall planter")
    assert ids(api.get("/search/wall%20hook/")) == [both.pk]
    assert ids(api.get("/search/hook%20-wall/")) == [hook.pk]
    assert ids(api.get('/search/"wall hook"/')) == [both.pk]


def test_unpublished_things_never_appear_even_to_their_creator(api, user):
    indexed_thing(name="Secret bracket", creator=user, is_published=False)
    published = indexed_thing(name="Bracket")
    assert ids(api.get("/search/bracket/")) == [published.pk]


def test_a_deleted_thing_is_gone_from_search(api):
    thing = indexed_thing(name="Bracket")
    thing.delete()
    assert_error(api.get("/search/bracket/"), 404, "NOT_FOUND")


def test_nothing_matching_is_404(api):
    indexed_thing(name="Bracket")
    assert_error(api.get("/search/zeppelin/"), 404, "NOT_FOUND")


def test_a_term_of_stop_words_only_matches_nothing(api):
    indexed_thing(name="The bracket")
    assert_error(api.get("/search/the/"), 404, "NOT_FOUND")


def test_without_a_term_it_lists_every_published_thing_newest_first(api, user):
    older = indexed_thing(name="Older")
    newer = indexed_thing(name="Newer")
    indexed_thing(name="Draft", creator=user, is_published=False)
    for path in ("/search/", "/search"):
        assert ids(api.get(path)) == [newer.pk, older.pk]


def test_without_a_term_and_without_things_it_is_404(api):
    assert_error(api.get("/search/"), 404, "NOT_FOUND")


def test_it_answers_without_a_trailing_slash_too(api):
    thing = indexed_thing(name="Bracket")
    assert ids(api.get("/search/bracket")) == [thing.pk]


def test_a_control_character_in_the_term_is_harmless(api):
    thing = indexed_thing(name="Bracket")
    assert ids(api.get("/search/bracket%01/")) == [thing.pk]


def test_a_nul_in_the_term_is_a_400(api):
    # docs/security.md (issue 14, finding 3): a NUL anywhere in a request is refused before any view.
    assert_error(api.get("/search/bracket%00/"), 400, "INVALID_CHARACTER")


def test_an_overlong_term_is_400(api):
    body = assert_error(api.get("/search/" + "a" * 201 + "/"), 400, "VALIDATION_FAILED")
    assert "term" in body["errors"]


# --- pagination and query counts ---------------------------------------------------------------------


def test_it_pages_with_link_headers_keeping_the_query(api):
    for n in range(3):
        indexed_thing(name=f"Bracket {n}")
    response = api.get("/search/bracket/", {"per_page": 2, "sort": "newest"})
    assert len(response.json()) == 2
    assert 'rel="next"' in response["Link"]
    assert "sort=newest" in response["Link"]
    assert len(api.get("/search/bracket/", {"per_page": 2, "page": 2}).json()) == 1


@pytest.mark.parametrize("rows", [1, 30])
def test_the_query_count_is_constant(api, rows, django_assert_num_queries, settings):
    settings.SEARCH_WINDOW_CACHE_SECONDS = 0  # every request computes its window
    creators = UserFactory.create_batch(3)
    for n in range(rows):
        indexed_thing(name=f"Bracket {n}", creator=creators[n % 3], tags=["bracket"])
    api.get("/search/bracket/")  # warm-up: last_active and the token's first use are written once
    # token lookup (with user and application), the ranked window (its length is the count), the page
    with django_assert_num_queries(3):
        response = api.get("/search/bracket/")
    assert len(response.json()) == rows


@pytest.mark.parametrize("rows", [1, 30])
def test_a_cached_window_saves_its_query(api, rows, django_assert_num_queries):
    # Issue 17: the public search's ranked window is cached (apps/search/window.py).
    creators = UserFactory.create_batch(3)
    for n in range(rows):
        indexed_thing(name=f"Bracket {n}", creator=creators[n % 3], tags=["bracket"])
    api.get("/search/bracket/")  # computes and caches the window
    # token lookup, the page (with creators)
    with django_assert_num_queries(2):
        response = api.get("/search/bracket/")
    assert len(response.json()) == rows


# --- filters ---------------------------------------------------------------------------------------


def test_license_filters_by_code(api):
    gpl = indexed_thing(name="Bracket", license="gpl")
    indexed_thing(name="Bracket", license="cc")
    assert ids(api.get("/search/bracket/", {"license": "gpl"})) == [gpl.pk]


def test_category_includes_its_sub_categories(api):
    child = indexed_thing(name="Bracket", category=category("replacement-parts"))
    parent = indexed_thing(name="Bracket", category=category("household"))
    indexed_thing(name="Bracket", category=category("chess"))
    assert set(ids(api.get("/search/bracket/", {"category": "household"}))) == {child.pk, parent.pk}
    assert ids(api.get("/search/bracket/", {"category": "replacement-parts"})) == [child.pk]


def test_is_wip_filters_both_ways(api):
    wip = indexed_thing(name="Bracket", is_wip=True)
    done = indexed_thing(name="Bracket", is_wip=False)
    assert ids(api.get("/search/bracket/", {"is_wip": "true"})) == [wip.pk]
    assert ids(api.get("/search/bracket/", {"is_wip": "false"})) == [done.pk]


def test_has_makes_filters_by_the_make_count(api):
    made = indexed_thing(name="Bracket", make_count=2)
    unmade = indexed_thing(name="Bracket", make_count=0)
    assert ids(api.get("/search/bracket/", {"has_makes": "true"})) == [made.pk]
    assert ids(api.get("/search/bracket/", {"has_makes": "false"})) == [unmade.pk]


def test_posted_after_is_inclusive_and_posted_before_exclusive(api):
    january = indexed_thing(name="Bracket")
    february = indexed_thing(name="Bracket")
    Thing.objects.filter(pk=january.pk).update(added=datetime(2026, 1, 15, tzinfo=UTC))
    Thing.objects.filter(pk=february.pk).update(added=datetime(2026, 2, 1, tzinfo=UTC))
    # `added` is set once, at creation, which indexes it; backdating it by hand must index it again.
    thing_index_search(thing_ids=[january.pk, february.pk])
    assert ids(api.get("/search/bracket/", {"posted_after": "2026-02-01"})) == [february.pk]
    assert ids(api.get("/search/bracket/", {"posted_before": "2026-02-01"})) == [january.pk]
    between = {"posted_after": "2026-01-15T00:00:00+00:00", "posted_before": "2026-01-15T00:00:01Z"}
    assert ids(api.get("/search/bracket/", between)) == [january.pk]
    # A `+` that arrived as a space, and a date-time without offset (UTC).
    assert ids(api.get("/search/bracket/?posted_after=2026-01-31T23:00:00 00:00")) == [february.pk]
    assert ids(api.get("/search/bracket/", {"posted_before": "2026-01-31T12:00"})) == [january.pk]


def test_filters_combine_with_no_term(api):
    gpl = indexed_thing(name="Gear", license="gpl")
    indexed_thing(name="Bracket", license="cc")
    assert ids(api.get("/search/", {"license": "gpl"})) == [gpl.pk]


def test_a_filter_matching_nothing_is_404(api):
    indexed_thing(name="Bracket", license="cc")
    assert_error(api.get("/search/bracket/", {"license": "gpl"}), 404, "NOT_FOUND")


def test_an_empty_filter_value_is_ignored(api):
    thing = indexed_thing(name="Bracket")
    assert ids(api.get("/search/bracket/", {"license": "", "category": " "})) == [thing.pk]
    # Whitespace alone in a free-text filter is nothing once trimmed: no filter either.
    assert ids(api.get("/search/bracket/", {"material": " \t", "category": "\n"})) == [thing.pk]


@pytest.mark.parametrize("name", ["license", "sort", "type", "is_wip", "has_makes", "posted_after"])
@pytest.mark.parametrize("value", [" ", "\n\r", "\t"])
def test_whitespace_is_no_value_of_a_list_a_boolean_or_a_date(api, name, value):
    # A Schemathesis finding: `license=%0A%0D` searched with no license filter, though the document lists
    # the licenses (an enum) and allows only an empty value besides.
    indexed_thing(name="Bracket")
    response = api.get("/search/bracket/", {name: value})
    assert response.status_code == 400  # (X-Error carries the message without its control characters)
    body = response.json()
    assert body["type"] == "VALIDATION_FAILED" and list(body["errors"]) == [name]


@pytest.mark.parametrize(
    "params, field",
    [
        ({"license": "mit"}, "license"),
        ({"category": "no-such-category"}, "category"),
        ({"is_wip": "maybe"}, "is_wip"),
        ({"has_makes": "2"}, "has_makes"),
        ({"posted_after": "yesterday"}, "posted_after"),
        ({"posted_before": "2026-13-01"}, "posted_before"),
        # ISO 8601's basic form and week dates, and what Python's parser makes of stray text: not the
        # document's `date` or `date-time` (make fuzz sent `11700321.0`, answered 200 as 1170-03-21).
        ({"posted_before": "11700321.0"}, "posted_before"),
        ({"posted_before": "20260131"}, "posted_before"),
        ({"posted_after": "20260131T1200"}, "posted_after"),
        ({"posted_after": "2026-W05"}, "posted_after"),
        ({"posted_after": "2026-02-01", "posted_before": "2026-01-01"}, "posted_before"),
        ({"sort": "random"}, "sort"),
        ({"type": "widgets"}, "type"),
        ({"per_page": "ten"}, "per_page"),
    ],
)
def test_bad_parameters_are_400_with_the_field(api, params, field):
    indexed_thing(name="Bracket")
    body = assert_error(api.get("/search/bracket/", params), 400, "VALIDATION_FAILED")
    assert field in body["errors"]
    assert body["error"].startswith(f"{field}: ")


def test_an_unknown_type_names_the_supported_ones(api):
    body = assert_error(api.get("/search/bracket/", {"type": "widgets"}), 400, "VALIDATION_FAILED")
    assert body["errors"]["type"] == ["type must be one of: things, users, collections, makes."]


# --- sorts -----------------------------------------------------------------------------------------


@pytest.fixture
def sortable():
    """Three matching Things: `relevant` by name, `likes`, `popular` (likes + makes + downloads), newest."""
    return {
        "name_match": indexed_thing(name="Bracket", description="Plain.", like_count=1),
        "liked": indexed_thing(name="Shelf", description="A bracket.", like_count=10),
        "made": indexed_thing(
            name="Hook", description="A bracket.", like_count=2, make_count=5, download_count=9
        ),
    }


def test_sort_relevant_is_the_default(api, sortable):
    ordered = [sortable["name_match"].pk, sortable["liked"].pk, sortable["made"].pk]
    assert ids(api.get("/search/bracket/")) == ordered
    assert ids(api.get("/search/bracket/", {"sort": "relevant"})) == ordered


def test_sort_newest(api, sortable):
    assert ids(api.get("/search/bracket/", {"sort": "newest"})) == [
        sortable["made"].pk, sortable["liked"].pk, sortable["name_match"].pk,
    ]


def test_sort_popular_adds_likes_makes_and_downloads(api, sortable):
    assert ids(api.get("/search/bracket/", {"sort": "popular"})) == [
        sortable["made"].pk, sortable["liked"].pk, sortable["name_match"].pk,
    ]


def test_sort_likes(api, sortable):
    assert ids(api.get("/search/bracket/", {"sort": "likes"})) == [
        sortable["liked"].pk, sortable["made"].pk, sortable["name_match"].pk,
    ]


def test_sorts_apply_without_a_term(api, sortable):
    assert ids(api.get("/search/", {"sort": "likes"})) == [
        sortable["liked"].pk, sortable["made"].pk, sortable["name_match"].pk,
    ]


# --- type=users ------------------------------------------------------------------------------------


USER_KEYS = {
    "id", "name", "first_name", "last_name", "full_name", "url", "public_url", "thumbnail", "cover_image",
    "bio", "location", "registered", "last_active", "things", "copies", "likes", "things_url",
    "copies_url", "likes_url",
}


def test_type_users_matches_name_first_last_name_and_bio(api):
    by_name = UserFactory(username="gearhead", first_name="Ann", last_name="Lee", bio="")
    by_last = UserFactory(username="ann2", first_name="Bob", last_name="Gearson", bio="")
    by_bio = UserFactory(username="zed", first_name="Zed", last_name="Zee", bio="I print gears.")
    UserFactory(username="other", first_name="No", last_name="Match", bio="Knitting.")
    UserFactory(username="gearsuspended", is_active=False)
    response = api.get("/search/gear/", {"type": "users"})
    assert response.status_code == 200
    body = response.json()["hits"]  # naming `type` answers {total, hits} (docs/decisions.md: Search shape)
    assert [item["id"] for item in body] == [by_name.pk, by_last.pk, by_bio.pk]
    assert set(body[0]) == USER_KEYS


def test_type_users_puts_the_exact_name_first(api):
    prefix = UserFactory(username="gear-maker", bio="")
    exact = UserFactory(username="Gear", bio="")
    assert hit_ids(api.get("/search/gear/", {"type": "users"})) == [exact.pk, prefix.pk]


def test_type_users_shows_the_owner_fields_only_to_the_owner(api, user):
    body = api.get(f"/search/{user.username}/", {"type": "users"}).json()["hits"]
    assert body[0]["email"] == user.email


def test_type_users_with_no_match_is_404(api):
    assert_error(api.get("/search/nobody-like-this/", {"type": "users"}), 404, "NOT_FOUND")


@pytest.mark.parametrize("params, field", [({"license": "gpl"}, "license"), ({"sort": "likes"}, "sort")])
def test_type_users_refuses_thing_only_parameters(api, params, field):
    body = assert_error(api.get("/search/gear/", {"type": "users", **params}), 400, "VALIDATION_FAILED")
    assert field in body["errors"]


@pytest.mark.parametrize("rows", [1, 30])
def test_type_users_query_count_is_constant(api, rows, django_assert_num_queries):
    for n in range(rows):
        UserFactory(username=f"maker{n}", bio="")
    api.get("/search/maker/", {"type": "users"})
    # token lookup, COUNT of users, the page
    with django_assert_num_queries(3):
        response = api.get("/search/maker/", {"type": "users"})
    assert len(response.json()["hits"]) == response.json()["total"] == rows


def test_an_unpublished_thing_is_not_listed_by_filtering_either(api, user):
    ThingFactory(name="Bracket", creator=user, is_published=False, license="gpl")
    assert_error(api.get("/search/", {"license": "gpl"}), 404, "NOT_FOUND")


# --- the result window -----------------------------------------------------------------------------


def test_results_stop_at_the_window_of_the_most_liked_matches_ranked_by_relevance(api, monkeypatch):
    monkeypatch.setattr("apps.search.selectors.RESULT_WINDOW", 3)
    described = indexed_thing(name="Shelf", description="A bracket.", like_count=9)
    named = indexed_thing(name="Bracket", description="", like_count=5)
    tagged = indexed_thing(name="Hook", description="", tags=["bracket"], like_count=7)
    indexed_thing(name="Bracket", description="", like_count=1)  # outside the window: least liked
    response = api.get("/search/bracket/", {"per_page": 2})
    assert ids(response) == [named.pk, tagged.pk]
    assert 'page=2>; rel="last"' in response["Link"]
    assert ids(api.get("/search/bracket/", {"per_page": 2, "page": 2})) == [described.pk]


def test_the_window_follows_the_sort(api, monkeypatch):
    monkeypatch.setattr("apps.search.selectors.RESULT_WINDOW", 2)
    things = [indexed_thing(name="Bracket") for _ in range(3)]
    assert ids(api.get("/search/bracket/", {"sort": "newest"})) == [things[2].pk, things[1].pk]
    assert ids(api.get("/search/", {"sort": "newest"})) == [things[2].pk, things[1].pk]
