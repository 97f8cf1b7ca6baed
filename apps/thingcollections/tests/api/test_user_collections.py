"""GET /users/{username}/collections/{all} and /users/{username}/all-collected-things (spec §4.1)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error, ids
from apps.things.tests.helpers import SHORT_THING_KEYS
from apps.thingcollections import services
from apps.thingcollections.models import CollectionThing
from apps.thingcollections.tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db


def test_a_users_collections_newest_first_paginated(api, other_user):
    _older, newer = CollectionFactory(creator=other_user), CollectionFactory(creator=other_user)
    CollectionFactory()  # someone else's
    response = api.get(f"/users/{other_user.username}/collections?per_page=1")
    assert ids(response) == [newer.pk]
    assert 'rel="next"' in response["Link"]


@pytest.mark.parametrize("flag", ["true", "1", "True"])
def test_all_returns_the_full_list_unpaginated(api, other_user, flag):
    collections = CollectionFactory.create_batch(3, creator=other_user)
    response = api.get(f"/users/{other_user.username}/collections/{flag}?per_page=1")
    assert ids(response) == [c.pk for c in reversed(collections)]
    assert "Link" not in response


def test_all_false_is_paginated_and_a_bad_flag_400(api, user):
    CollectionFactory.create_batch(2, creator=user)
    assert len(api.get("/users/me/collections/false?per_page=1").json()) == 1
    assert_error(api.get("/users/me/collections/maybe"), 400, "VALIDATION_FAILED")


@pytest.mark.parametrize("path", ["collections", "collections/true", "all-collected-things"])
def test_unknown_user_is_404(api, path):
    # Anonymous: test_access_matrix.py.
    assert_error(api.get(f"/users/nobody-here/{path}"), 404)


def test_all_collected_things_once_each_visible_newest_collected_first(api, user, other_user):
    a, b = ThingFactory(), ThingFactory()
    hidden = ThingFactory(is_published=False)
    first, second = CollectionFactory(creator=other_user), CollectionFactory(creator=other_user)
    for collection, thing in ((first, a), (first, b), (second, a), (second, hidden)):
        services.collection_add_thing(collection=collection, thing=thing, user=other_user)
    now = timezone.now()
    CollectionThing.objects.filter(thing=b).update(added=now - timedelta(minutes=1))
    CollectionThing.objects.filter(thing=a, collection=first).update(added=now - timedelta(minutes=5))
    CollectionThing.objects.filter(thing=a, collection=second).update(added=now - timedelta(minutes=3))
    body = api.get(f"/users/{other_user.username}/all-collected-things").json()
    assert body["count"] == 2
    assert [t["id"] for t in body["things"]] == [b.pk, a.pk]
    assert set(body["things"][0]) == SHORT_THING_KEYS


@pytest.mark.caches_off  # counts the uncached path's statements (the token cache would hide one)
@pytest.mark.parametrize("rows", [1, 30])
def test_query_counts_do_not_grow(api, other_user, rows, django_assert_num_queries):
    for collection in CollectionFactory.create_batch(rows, creator=other_user):
        services.collection_add_thing(collection=collection, thing=ThingFactory(), user=other_user)
    api.get("/users/me/")  # warm-up
    name = other_user.username
    # token; user by name; COUNT; SELECT collections; SELECT thumbnail Things
    with django_assert_num_queries(5):
        assert len(api.get(f"/users/{name}/collections").json()) == rows
    # token; user by name; SELECT collections; SELECT thumbnail Things
    with django_assert_num_queries(4):
        assert len(api.get(f"/users/{name}/collections/true").json()) == rows
    # token; user by name; SELECT Things
    with django_assert_num_queries(3):
        assert api.get(f"/users/{name}/all-collected-things").json()["count"] == rows
