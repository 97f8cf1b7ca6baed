"""POST /things/{id}/toggle-watch (spec §3: watching ↔ not watching, returns {watching})."""
import pytest

from apps.things.models import Watch
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def test_it_toggles_between_watching_and_not(api, user, other_user):
    thing = ThingFactory(creator=other_user)
    response = api.post(f"/things/{thing.pk}/toggle-watch")
    assert response.status_code == 200
    assert response.json() == {"watching": True}
    assert Watch.objects.filter(user=user, thing=thing).exists()
    assert api.get(f"/things/{thing.pk}").json()["is_watched"] is True
    assert api.post(f"/things/{thing.pk}/toggle-watch/").json() == {"watching": False}
    assert not Watch.objects.exists()


def test_one_can_watch_ones_own_draft(api, user):
    draft = ThingFactory(creator=user, is_published=False)
    assert api.post(f"/things/{draft.pk}/toggle-watch").json() == {"watching": True}
