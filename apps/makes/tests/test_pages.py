"""The make's site page at its `public_url` (/make:<id>)."""
import pytest
from django.test import Client

from apps.makes.tests.factories import MakeFactory, make_image
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def test_the_page_shows_the_copy_its_thing_and_images(client):
    make = MakeFactory(description="Printed in wood PLA.", thing=ThingFactory(name="Cable clip"))
    image = make_image(make)
    response = client.get(f"/make:{make.pk}")
    assert response.status_code == 200
    html = response.content.decode()
    for text in ("Cable clip", "Printed in wood PLA.", make.creator.username, f"/thing:{make.thing_id}", image.key):
        assert text in html


def test_a_hidden_copy_or_one_of_a_draft_is_404(client, user):
    hidden = MakeFactory(is_hidden=True, hidden_reason="spam")
    of_a_draft = MakeFactory(thing=ThingFactory(creator=user, is_published=False))
    for make in (hidden, of_a_draft):
        assert client.get(f"/make:{make.pk}").status_code == 404
    assert client.get("/make:999999").status_code == 404
    owner = Client()
    owner.force_login(user)
    assert owner.get(f"/make:{of_a_draft.pk}").status_code == 200
