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


@pytest.mark.django_db
@pytest.mark.parametrize("viewer_kind", ["anonymous", "creator", "liker"])
def test_the_full_thing_equals_its_declared_fields(viewer_kind):
    """ThingSerializer builds its fields directly (first reads); DRF's per-field output of the same
    declared fields is the reference: same keys, same order, same values, for the detail statement's
    Things of several kinds and viewers."""
    from apps.accounts.tests.factories import UserFactory
    from apps.things import selectors, services
    from apps.things.models import Remix, Watch
    from apps.things.serializers import ThingSerializer
    from apps.things.tests.factories import category

    plain = ThingFactory(instructions="", description="")
    rich = ThingFactory(
        tags=["gear", "Bracket"], category=category("replacement-parts"),
        description="A **bold** bracket.\n\n- one\n- two", instructions="Print *slowly*.",
        print_settings={"printer": "Prusa", "material": "PETG", "layer_height_mm": 0.2},
    )
    Remix.objects.create(ancestor=rich, derivative=ThingFactory())
    liker = UserFactory()
    services.thing_like(user=liker, thing=rich)
    Watch.objects.create(user=liker, thing=rich)
    viewer = {"anonymous": None, "creator": rich.creator, "liker": liker}[viewer_kind]
    for made in (plain, rich):
        thing = selectors.thing_get_for_viewer(made.pk, viewer=viewer)
        serializer = ThingSerializer(thing)
        built = serializer._fields_built(thing)
        generic = serializers.Serializer.to_representation(serializer, thing)
        assert list(built.items()) == list(generic.items())
    assert built["is_liked"] is built["is_watched"] is (viewer_kind == "liker")
