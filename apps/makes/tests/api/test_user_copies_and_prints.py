"""GET /users/{username}/copies (spec §4.1) and GET /things/{id}/prints (spec §4.2: a Thing's makes)."""
import pytest

from apps.accounts.tests.factories import UserFactory
from apps.makes.tests.factories import MakeFactory, make_image
from tests.support.api import assert_error, ids
from apps.makes.tests.helpers import COPY_KEYS
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


# --- /users/{username}/copies ------------------------------------------------------------------------


def test_user_copies_lists_their_visible_copies_newest_first(api, other_user):
    older, newer = MakeFactory(creator=other_user), MakeFactory(creator=other_user)
    MakeFactory(creator=other_user, is_hidden=True, hidden_reason="spam")
    MakeFactory(creator=other_user, thing=ThingFactory(is_published=False))  # a draft of a third user
    MakeFactory()  # someone else's
    response = api.get(f"/users/{other_user.username}/copies")
    assert ids(response) == [newer.pk, older.pk]
    assert set(response.json()[0]) == COPY_KEYS
    assert 'rel="last"' in response["Link"]


def test_me_names_the_caller(api, user):
    own = MakeFactory(creator=user)
    assert ids(api.get("/users/me/copies")) == [own.pk]


def test_user_copies_of_an_unknown_or_suspended_user_is_404(api):
    assert_error(api.get("/users/nobody-here/copies"), 404, "NOT_FOUND")
    suspended = UserFactory(is_active=False)
    assert_error(api.get(f"/users/{suspended.username}/copies"), 404)


@pytest.mark.parametrize("rows", [1, 30])
def test_user_copies_query_count_does_not_grow(api, other_user, rows, django_assert_num_queries):
    for make in MakeFactory.create_batch(rows, creator=other_user):
        make_image(make)
    api.get("/users/me/")
    with django_assert_num_queries(4):  # token; user; COUNT; SELECT
        assert len(api.get(f"/users/{other_user.username}/copies").json()) == rows


# --- /things/{id}/prints -----------------------------------------------------------------------------


def test_prints_are_the_things_visible_copies(api, other_user):
    thing = ThingFactory(creator=other_user)
    older, newer = MakeFactory(thing=thing), MakeFactory(thing=thing)
    MakeFactory(thing=thing, is_hidden=True, hidden_reason="spam")
    MakeFactory()
    response = api.get(f"/things/{thing.pk}/prints")
    assert ids(response) == [newer.pk, older.pk]
    assert set(response.json()[0]) == COPY_KEYS


@pytest.mark.parametrize("rows", [1, 30])
def test_prints_query_count_does_not_grow(api, rows, django_assert_num_queries):
    thing = ThingFactory()
    for make in MakeFactory.create_batch(rows, thing=thing):
        make_image(make)
    api.get("/users/me/")
    with django_assert_num_queries(4):  # token; Thing; COUNT; SELECT
        assert len(api.get(f"/things/{thing.pk}/prints").json()) == rows
