"""The short shapes are built directly for speed; they must equal what their declared fields produce."""
import pytest
from rest_framework import serializers

from apps.accounts.serializers import UserSummarySerializer
from apps.things.selectors import thing_short_queryset
from apps.things.serializers import ThingShortSerializer
from apps.things.tests.factories import ThingFactory


@pytest.mark.django_db
def test_the_short_thing_equals_its_declared_fields():
    thing = thing_short_queryset().get(pk=ThingFactory(tags=["gear"]).pk)
    serializer = ThingShortSerializer(thing)
    generic = serializers.Serializer.to_representation(serializer, thing)
    assert serializer.data == generic
    assert set(serializer.data) == {
        "id", "name", "url", "public_url", "thumbnail", "creator", "is_published", "is_wip", "like_count",
        "added",
    }


@pytest.mark.django_db
def test_the_user_summary_equals_its_declared_fields(user):
    serializer = UserSummarySerializer(user)
    assert serializer.data == serializers.Serializer.to_representation(serializer, user)


@pytest.mark.django_db
def test_the_short_queryset_loads_a_page_in_one_query(django_assert_num_queries):
    ThingFactory.create_batch(3)
    with django_assert_num_queries(1):
        _ = ThingShortSerializer(list(thing_short_queryset()), many=True).data
