"""Print settings on the site (issue 27): the Thing form writes them, the Thing page shows them, /find
filters by material. The same rules as the API (apps/things/printsettings.py)."""
import pytest
from django.test import Client

from apps.search.tests.helpers import indexed_thing
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


def _form(**overrides):
    return {"name": "Cable clip", "description": "Holds cables.", "instructions": "", "category": "",
            "license": "cc-sa", "tags": "", **overrides}


def test_the_new_thing_form_stores_print_settings(browser, user):
    response = browser.post("/new", _form(print_material="PETG", print_layer_height_mm="0.2",
                                          print_supports="no", print_infill_percent="15", print_printer=""))

    assert response.status_code == 302, response.content.decode()[:2000]
    thing = Thing.objects.get(creator=user)
    assert thing.print_settings == {"material": "PETG", "layer_height_mm": 0.2, "supports": False,
                                    "infill_percent": 15.0}


def test_the_edit_form_shows_changes_and_clears_them(browser, user):
    thing = ThingFactory(creator=user, name="Clip", print_settings={"material": "PLA", "nozzle_mm": 0.6,
                                                                     "supports": True})
    page = browser.get(f"/thing:{thing.pk}/edit").content.decode()
    assert 'name="print_material" value="PLA"' in page
    assert '<option value="yes" selected>' in page

    form = _form(name="Clip", print_material="PLA", print_nozzle_mm="0.4", print_supports="yes",
                 print_notes="Brim.")
    assert browser.post(f"/thing:{thing.pk}/edit", form).status_code == 302
    thing.refresh_from_db()
    assert thing.print_settings == {"material": "PLA", "supports": True, "nozzle_mm": 0.4, "notes": "Brim."}

    assert browser.post(f"/thing:{thing.pk}/edit", _form(name="Clip")).status_code == 302
    thing.refresh_from_db()
    assert thing.print_settings is None


def test_out_of_range_values_are_refused_with_the_field_error(browser, user):
    thing = ThingFactory(creator=user, print_settings={"material": "PLA"})

    response = browser.post(f"/thing:{thing.pk}/edit", _form(print_infill_percent="250"))

    assert response.status_code == 400
    assert "Ensure this value is less than or equal to 100" in response.content.decode()
    thing.refresh_from_db()
    assert thing.print_settings == {"material": "PLA"}


def test_the_thing_page_shows_them_with_a_material_search_link(client):
    thing = ThingFactory(print_settings={"material": "PETG", "layer_height_mm": 0.16, "infill_percent": 20,
                                         "supports": False})

    page = client.get(f"/thing:{thing.pk}").content.decode()

    assert "Print settings" in page
    assert '<a href="/find?material=PETG">PETG</a>' in page
    assert "0.16 mm" in page and "20%" in page and '<dd class="print-supports">No</dd>' in page


def test_a_thing_without_print_settings_shows_no_panel(client):
    assert "Print settings" not in client.get(f"/thing:{ThingFactory().pk}").content.decode()


@pytest.mark.parametrize("term", ["bracket", ""])
def test_find_filters_by_material(client, term):
    petg = indexed_thing(name="Shelf bracket", print_settings={"material": "PETG"})
    indexed_thing(name="Wall bracket", print_settings={"material": "PLA"})
    indexed_thing(name="Desk bracket")

    page = client.get("/find", {"q": term, "material": "petg"}).content.decode()

    assert "Shelf bracket" in page and "Wall bracket" not in page and "Desk bracket" not in page
    assert f"/thing:{petg.pk}" in page
    assert 'name="material" value="petg"' in page
