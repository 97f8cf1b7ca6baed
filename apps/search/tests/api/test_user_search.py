"""GET /users/{username}/search/{term} (spec §4.1): one user's Things."""
import pytest

from tests.support.api import assert_error, ids
from apps.search.tests.helpers import SHORT_THING_KEYS, indexed_thing

pytestmark = pytest.mark.django_db


def test_it_finds_that_users_published_things_matching(api, other_user, user):
    theirs = indexed_thing(name="Bracket", creator=other_user)
    indexed_thing(name="Bracket draft", creator=other_user, is_published=False)
    indexed_thing(name="Bracket", creator=user)
    response = api.get(f"/users/{other_user.username}/search/bracket")
    assert ids(response) == [theirs.pk]
    assert set(response.json()[0]) == SHORT_THING_KEYS


def test_the_callers_own_search_includes_drafts(api, user):
    published = indexed_thing(name="Bracket", creator=user, like_count=1)
    draft = indexed_thing(name="Bracket", creator=user, is_published=False)
    assert ids(api.get("/users/me/search/bracket")) == [published.pk, draft.pk]
    assert ids(api.get(f"/users/{user.username.upper()}/search/bracket")) == [published.pk, draft.pk]


def test_without_a_term_it_lists_the_users_things_newest_first(api, other_user):
    first = indexed_thing(name="Gear", creator=other_user)
    second = indexed_thing(name="Hook", creator=other_user)
    for path in (f"/users/{other_user.username}/search/", f"/users/{other_user.username}/search"):
        assert ids(api.get(path)) == [second.pk, first.pk]


def test_it_ranks_and_filters_like_search(api, other_user):
    in_description = indexed_thing(name="Shelf", description="A bracket.", creator=other_user, license="gpl")
    in_name = indexed_thing(name="Bracket", creator=other_user, license="gpl")
    indexed_thing(name="Bracket", creator=other_user, license="cc")
    assert ids(api.get(f"/users/{other_user.username}/search/bracket", {"license": "gpl"})) == [
        in_name.pk, in_description.pk,
    ]


def test_an_unknown_user_is_404_before_a_bad_parameter(api):
    assert_error(api.get("/users/nobody-here/search/bracket", {"sort": "nope"}), 404, "NOT_FOUND")


def test_no_match_is_404(api, other_user):
    indexed_thing(name="Gear", description="", creator=other_user)
    assert_error(api.get(f"/users/{other_user.username}/search/bracket"), 404, "NOT_FOUND")


def test_another_users_drafts_alone_are_404(api, other_user):
    indexed_thing(name="Bracket", creator=other_user, is_published=False)
    assert_error(api.get(f"/users/{other_user.username}/search/bracket"), 404, "NOT_FOUND")


def test_a_bad_parameter_is_400(api, other_user):
    response = api.get(f"/users/{other_user.username}/search/x", {"is_wip": "?"})
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert "is_wip" in body["errors"]


@pytest.mark.parametrize("rows", [1, 30])
def test_the_query_count_is_constant(api, other_user, rows, django_assert_num_queries):
    for n in range(rows):
        indexed_thing(name=f"Bracket {n}", creator=other_user)
    path = f"/users/{other_user.username}/search/bracket"
    api.get(path)
    # token lookup, the user by name, COUNT, the page
    with django_assert_num_queries(4):
        response = api.get(path)
    assert len(response.json()) == rows
