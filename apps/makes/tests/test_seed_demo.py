"""seed_demo (apps.demo) posts a few copies; make_count follows them, and a second run changes nothing."""
import pytest

from apps.demo.services import DEMO_MAKES, demo_seed
from apps.makes.models import Make
from apps.things.models import Thing

pytestmark = pytest.mark.django_db


def test_seed_demo_adds_demo_copies_visible_through_the_api(s3, client_for):
    demo_seed()
    demo_seed()
    assert Make.objects.count() == len(DEMO_MAKES)
    bracket = Thing.objects.get(name="Parametric Shelf Bracket")
    assert bracket.make_count == 2
    alice = Make.objects.get(creator__username="alice").creator
    response = client_for(alice).get(f"/things/{bracket.pk}/copies")
    assert response.status_code == 200
    assert {c["creator"]["name"] for c in response.json()} == {"alice", "bob"}
