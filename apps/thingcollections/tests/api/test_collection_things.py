"""GET /collections/{id}/things, POST/DELETE /collections/{id}/thing/{thing_id} (spec §4.5)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.oauth.tests.factories import ApplicationFactory
from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error, ids
from apps.things.tests.helpers import SHORT_THING_KEYS
from apps.thingcollections import services
from apps.thingcollections.models import CollectionThing
from apps.thingcollections.tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db


def _collect_count(thing):
    thing.refresh_from_db(fields=["collect_count"])
    return thing.collect_count


def test_add_records_reason_and_app_and_counts_once(api, user, application):
    collection, thing = CollectionFactory(creator=user), ThingFactory()
    response = api.post(f"/collections/{collection.pk}/thing/{thing.pk}", {"description": "nice"}, format="json")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert api.post(f"/collections/{collection.pk}/thing/{thing.pk}/").status_code == 200  # again
    entry = CollectionThing.objects.get()
    assert (entry.description, entry.added_by_app) == ("nice", application)
    assert _collect_count(thing) == 1


def test_add_rules(api, user):
    # Anonymous, another user's collection and a missing one: test_access_matrix.py.
    mine, thing = CollectionFactory(creator=user), ThingFactory()
    assert_error(api.post(f"/collections/{mine.pk}/thing/999999"), 404)
    assert_error(api.post(f"/collections/{mine.pk}/thing/{ThingFactory(is_published=False).pk}"), 404)
    assert_error(api.post(f"/collections/{mine.pk}/thing/{thing.pk}", {"description": "x" * 1001},
                          format="json"), 400, "VALIDATION_FAILED")
    assert not CollectionThing.objects.exists()


def test_own_draft_can_be_added(api, user):
    collection, draft = CollectionFactory(creator=user), ThingFactory(creator=user, is_published=False)
    assert api.post(f"/collections/{collection.pk}/thing/{draft.pk}").status_code == 200


def test_remove_and_its_errors(api, user, other_user):
    collection, thing = CollectionFactory(creator=user), ThingFactory()
    api.post(f"/collections/{collection.pk}/thing/{thing.pk}")
    theirs = CollectionFactory(creator=other_user)
    services.collection_add_thing(collection=theirs, thing=thing, user=other_user)
    assert_error(api.delete(f"/collections/{theirs.pk}/thing/{thing.pk}"), 403)
    assert api.delete(f"/collections/{collection.pk}/thing/{thing.pk}").json() == {"ok": True}
    assert _collect_count(thing) == 1  # still in theirs
    # Not in the collection (any more): 404.
    assert_error(api.delete(f"/collections/{collection.pk}/thing/{thing.pk}"), 404)


def test_a_thing_that_became_a_draft_can_still_be_removed(api, user):
    collection, thing = CollectionFactory(creator=user), ThingFactory()
    api.post(f"/collections/{collection.pk}/thing/{thing.pk}")
    type(thing).objects.filter(pk=thing.pk).update(is_published=False)
    assert api.delete(f"/collections/{collection.pk}/thing/{thing.pk}").status_code == 200


def test_app_rules_for_adding_and_removing(client_for, user):
    app_a, app_b = ApplicationFactory(), ApplicationFactory()
    a, b = client_for(user, app=app_a), client_for(user, app=app_b)
    collection_id = a.post("/collections/", {"name": "by A"}, format="json").json()["id"]
    by_a, by_b = ThingFactory(), ThingFactory()
    assert a.post(f"/collections/{collection_id}/thing/{by_a.pk}").status_code == 200
    # Apps can add to any collection the user owns.
    assert b.post(f"/collections/{collection_id}/thing/{by_b.pk}").status_code == 200
    # B adding A's Thing again does not make it B's.
    assert b.post(f"/collections/{collection_id}/thing/{by_a.pk}").status_code == 200
    assert_error(b.delete(f"/collections/{collection_id}/thing/{by_a.pk}"), 403)
    assert_error(a.delete(f"/collections/{collection_id}/thing/{by_b.pk}"), 403)
    assert b.delete(f"/collections/{collection_id}/thing/{by_b.pk}").status_code == 200
    assert a.delete(f"/collections/{collection_id}/thing/{by_a.pk}").status_code == 200
    assert (_collect_count(by_a), _collect_count(by_b)) == (0, 0)


def _collection_with(user, *things_minutes_ago):
    collection = CollectionFactory(creator=user)
    now = timezone.now()
    for thing, minutes in things_minutes_ago:
        services.collection_add_thing(collection=collection, thing=thing, user=user)
        CollectionThing.objects.filter(thing=thing).update(added=now - timedelta(minutes=minutes))
    return collection


def test_things_sorted_by_date_added_or_name(api, user):
    apple, banana, cherry = ThingFactory(name="apple"), ThingFactory(name="Banana"), ThingFactory(name="cherry")
    collection = _collection_with(user, (banana, 3), (cherry, 2), (apple, 1))
    url = f"/collections/{collection.pk}/things"
    response = api.get(url)
    assert set(response.json()[0]) == SHORT_THING_KEYS
    assert ids(response) == [apple.pk, cherry.pk, banana.pk]
    assert ids(api.get(url + "?order=asc")) == [banana.pk, cherry.pk, apple.pk]
    assert ids(api.get(url + "?sort=name&order=asc")) == [apple.pk, banana.pk, cherry.pk]
    assert ids(api.get(url + "?sort=name")) == [cherry.pk, banana.pk, apple.pk]


@pytest.mark.parametrize("query", ["sort=likes", "order=up", "order=ASC&sort=date"])
def test_things_reject_bad_sort_or_order(api, user, query):
    collection = CollectionFactory(creator=user)
    assert_error(api.get(f"/collections/{collection.pk}/things?{query}"), 400, "VALIDATION_FAILED")


def test_things_hide_others_drafts_but_show_own(api, user, other_user):
    public, own_draft = ThingFactory(), ThingFactory(creator=user, is_published=False)
    hidden = ThingFactory(is_published=False)
    collection = _collection_with(other_user, (public, 3), (own_draft, 2), (hidden, 1))
    assert ids(api.get(f"/collections/{collection.pk}/things")) == [own_draft.pk, public.pk]
    assert api.get(f"/collections/{collection.pk}/").json()["count"] == 2
    assert_error(api.get("/collections/999999/things"), 404)


@pytest.mark.parametrize("rows", [1, 30])
def test_things_query_count_does_not_grow(api, user, rows, django_assert_num_queries):
    collection = _collection_with(user, *((ThingFactory(), n) for n in range(rows)))
    api.get("/users/me/")  # warm-up
    # token; collection; COUNT; SELECT Things with creator
    with django_assert_num_queries(4):
        assert len(api.get(f"/collections/{collection.pk}/things").json()) == rows
