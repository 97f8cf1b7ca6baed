"""DELETE /things/{id}/ (spec §4.2): owner only, irreversible, gone from every list."""
import pytest

from apps.things.models import Like, Remix, Thing, ThingTag
from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error, ids

pytestmark = pytest.mark.django_db


def test_it_deletes_the_thing_and_what_hangs_off_it(api, user, other_user):
    thing = ThingFactory(creator=user, tags=["a"])
    Like.objects.create(user=other_user, thing=thing)
    derivative = ThingFactory(creator=other_user)
    Remix.objects.create(derivative=derivative, ancestor=thing)
    response = api.delete(f"/things/{thing.pk}/")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert not Thing.objects.filter(pk=thing.pk).exists()
    assert not (Like.objects.exists() or Remix.objects.exists() or ThingTag.objects.exists())
    assert Thing.objects.filter(pk=derivative.pk).exists()


def test_a_deleted_thing_is_404_and_gone_from_lists(api, client_for, user, other_user):
    thing = ThingFactory(creator=user)
    client_for(other_user).post(f"/things/{thing.pk}/likes")
    api.delete(f"/things/{thing.pk}")
    assert_error(api.get(f"/things/{thing.pk}/"), 404)
    assert_error(api.delete(f"/things/{thing.pk}/"), 404)
    assert ids(api.get("/users/me/things")) == []
    assert ids(api.get(f"/users/{other_user.username}/likes")) == []
