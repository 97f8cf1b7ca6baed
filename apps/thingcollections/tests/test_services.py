import pytest

from apps.core.domain.exceptions import PermissionDenied
from apps.things.tests.factories import ThingFactory
from apps.thingcollections import services
from apps.thingcollections.models import Collection, CollectionThing
from apps.thingcollections.tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db


def _collect_count(thing):
    thing.refresh_from_db(fields=["collect_count"])
    return thing.collect_count


def test_collect_count_counts_collections_holding_the_thing(user):
    thing = ThingFactory()
    a, b = CollectionFactory(creator=user), CollectionFactory(creator=user)
    services.collection_add_thing(collection=a, thing=thing, user=user)
    services.collection_add_thing(collection=a, thing=thing, user=user)  # again: no-op
    services.collection_add_thing(collection=b, thing=thing, user=user)
    assert _collect_count(thing) == 2
    services.collection_remove_thing(collection=a, thing_id=thing.pk, user=user)
    assert _collect_count(thing) == 1
    services.collection_delete(collection=b, user=user)
    assert _collect_count(thing) == 0
    assert not CollectionThing.objects.exists()


def test_adding_again_keeps_the_first_app_and_replaces_the_reason_only_when_given(user, application):
    thing, collection = ThingFactory(), CollectionFactory(creator=user)
    services.collection_add_thing(collection=collection, thing=thing, user=user, description="first",
                                  application=application)
    services.collection_add_thing(collection=collection, thing=thing, user=user)
    entry = CollectionThing.objects.get()
    assert (entry.description, entry.added_by_app_id) == ("first", application.pk)
    services.collection_add_thing(collection=collection, thing=thing, user=user, description="better")
    entry.refresh_from_db()
    assert (entry.description, entry.added_by_app_id) == ("better", application.pk)


def test_another_user_cannot_add(user, other_user):
    with pytest.raises(PermissionDenied):
        services.collection_add_thing(collection=CollectionFactory(creator=other_user), thing=ThingFactory(), user=user)


def test_releasing_a_departing_users_collections_keeps_counts_exact(user):
    thing = ThingFactory()
    for _ in range(2):
        services.collection_add_thing(collection=CollectionFactory(creator=user), thing=thing, user=user)
    services.collections_release_for_user(user=user)
    assert _collect_count(thing) == 0
    assert not Collection.objects.exists()


@pytest.mark.django_db
def test_deleting_an_account_lowers_the_collect_count_of_what_it_collected():
    from apps.accounts.services import user_delete
    from apps.accounts.tests.factories import UserFactory
    from apps.things.models import Thing
    from apps.things.tests.factories import ThingFactory
    from apps.thingcollections import services

    thing = ThingFactory()
    leaving, staying = UserFactory(), UserFactory()
    for collector in (leaving, staying):
        collection = services.collection_create(creator=collector, name="Favourites", application=None)
        services.collection_add_thing(collection=collection, thing=thing, user=collector, application=None)

    user_delete(user=leaving)

    assert Thing.objects.get(pk=thing.pk).collect_count == 1
