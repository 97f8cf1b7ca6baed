"""GET /things/{id}/ancestors and /derivatives (spec §4.2): only the Things the caller may see."""
import pytest

from apps.things.models import Remix
from apps.things.tests.factories import ThingFactory
from tests.support.api import ids
from apps.things.tests.helpers import SHORT_THING_KEYS

pytestmark = pytest.mark.django_db


def _remix(derivative, *ancestors):
    for ancestor in ancestors:
        Remix.objects.create(derivative=derivative, ancestor=ancestor)


def test_ancestors_are_the_visible_things_it_derives_from_newest_first(api, user, other_user):
    thing = ThingFactory(creator=user)
    older, newer = ThingFactory(creator=other_user), ThingFactory(creator=other_user)
    own_draft = ThingFactory(creator=user, is_published=False)
    their_draft = ThingFactory(creator=other_user, is_published=False)
    _remix(thing, older, newer, own_draft, their_draft)
    response = api.get(f"/things/{thing.pk}/ancestors")
    assert ids(response) == [own_draft.pk, newer.pk, older.pk]
    assert set(response.json()[0]) == SHORT_THING_KEYS


def test_derivatives_are_the_visible_things_derived_from_it(api, user, other_user):
    thing = ThingFactory(creator=other_user)
    derived = ThingFactory(creator=other_user)
    hidden = ThingFactory(creator=other_user, is_published=False)
    _remix(derived, thing)
    _remix(hidden, thing)
    assert ids(api.get(f"/things/{thing.pk}/derivatives")) == [derived.pk]
    assert ids(api.get(f"/things/{derived.pk}/derivatives")) == []


@pytest.mark.caches_off  # counts the uncached path's statements (the token cache would hide one)
@pytest.mark.parametrize("rows", [1, 30])
def test_query_count_does_not_grow(api, other_user, rows, django_assert_num_queries):
    thing = ThingFactory(creator=other_user)
    for other in ThingFactory.create_batch(rows, creator=other_user):
        _remix(thing, other)
        _remix(other, thing)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    for which in ("ancestors", "derivatives"):
        # token; Thing; COUNT; SELECT Things with creator (no tags: the short Thing has none)
        with django_assert_num_queries(4):
            assert len(api.get(f"/things/{thing.pk}/{which}").json()) == rows
