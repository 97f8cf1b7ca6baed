import factory

from apps.accounts.tests.factories import UserFactory
from apps.things.tests.factories import ThingFactory
from apps.thingcollections.models import Collection, CollectionThing


class CollectionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Collection

    creator = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Shelf parts {n}")
    description = "Things for the garage."


class CollectionThingFactory(factory.django.DjangoModelFactory):
    """A bare entry; tests that check collect_count add through services.collection_add_thing."""

    class Meta:
        model = CollectionThing

    collection = factory.SubFactory(CollectionFactory)
    thing = factory.SubFactory(ThingFactory)
