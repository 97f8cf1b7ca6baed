"""apps.core.db.loading: instances made from rows directly behave as Django's own (issue 24)."""
import pytest
from django.db.models import Model
from django.db.models.signals import post_init, pre_init

from apps.accounts.models import User
from apps.core.db.loading import LeanFromDb
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def _django_made(model, pk, **only):
    """The same row through Model.from_db as Django defines it."""
    row = model.objects.filter(pk=pk).values_list(*[f.attname for f in model._meta.concrete_fields]).get()
    django_from_db = Model.__dict__["from_db"].__func__  # Model's own, not the model's LeanFromDb
    return django_from_db(model, "default", [f.attname for f in model._meta.concrete_fields], row)


def test_a_loaded_thing_has_the_same_attributes_and_state_as_djangos():
    thing = ThingFactory(tags=["gear"])
    lean = Thing.objects.get(pk=thing.pk)
    assert "from_db" not in Thing.__dict__ and Thing.__mro__.index(LeanFromDb) < Thing.__mro__.index(Model)
    made = _django_made(Thing, thing.pk)
    names = [f.attname for f in Thing._meta.concrete_fields]
    assert [getattr(lean, n) for n in names] == [getattr(made, n) for n in names]
    assert (lean._state.adding, lean._state.db) == (made._state.adding, made._state.db) == (False, "default")
    assert lean.creator.username == thing.creator.username  # relations load as before


def test_deferred_fields_still_load_on_access_and_saving_updates_the_row():
    thing = ThingFactory(description="kept")
    lean = Thing.objects.only("id", "name").get(pk=thing.pk)
    assert lean.get_deferred_fields() >= {"description"}
    assert lean.description == "kept"
    lean.name = "renamed"
    lean.save(update_fields=["name"])
    assert Thing.objects.filter(name="renamed").count() == 1  # an UPDATE, not an INSERT


def test_select_related_rows_are_lean_too_and_match():
    thing = ThingFactory()
    loaded = Thing.objects.select_related("creator").get(pk=thing.pk)
    assert "creator" in loaded._state.fields_cache
    assert loaded.creator.pk == thing.creator_id
    user_fields = [f.attname for f in User._meta.concrete_fields]
    made = _django_made(User, thing.creator_id)
    assert [getattr(loaded.creator, n) for n in user_fields] == [getattr(made, n) for n in user_fields]
    assert str(loaded.creator.avatar) == str(made.avatar)  # a file field reads as a FieldFile either way


def test_a_post_init_receiver_gets_djangos_own_path():
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.pk)

    thing = ThingFactory()
    post_init.connect(receiver, sender=Thing)
    try:
        Thing.objects.get(pk=thing.pk)
    finally:
        post_init.disconnect(receiver, sender=Thing)
    assert seen == [thing.pk]


@pytest.mark.parametrize("signal", [pre_init, post_init], ids=["pre_init", "post_init"])
def test_a_receiver_connected_after_lean_loads_is_still_heard(signal):
    # The lean path reads the signal's per-sender cache ("no receivers"), which connect() clears.
    seen = []

    def receiver(sender, **kwargs):
        seen.append(sender)

    thing = ThingFactory()
    Thing.objects.get(pk=thing.pk)
    Thing.objects.get(pk=thing.pk)  # the cache now says Thing has no receivers
    signal.connect(receiver, sender=Thing)
    try:
        Thing.objects.get(pk=thing.pk)
    finally:
        signal.disconnect(receiver, sender=Thing)
    assert seen == [Thing]
    Thing.objects.get(pk=thing.pk)  # disconnected: lean again, nothing heard
    assert seen == [Thing]
