"""A Thing's description and instructions are rendered when saved and read as stored (issue 24), and
never shown as the HTML of texts they no longer have, whatever path changed them."""
import pytest
from django.core.management import call_command

from apps.core.domain import markup
from apps.things.models import Thing, documents_html
from apps.things.services import thing_documents_fill, thing_update
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def _fresh(text: str) -> str:
    return markup.document_render_fresh(text)


def test_saving_stores_the_rendering_of_the_texts():
    thing = ThingFactory(description="A **bold** clip.", instructions="Print *slowly*.")
    stored = Thing.objects.get(pk=thing.pk)
    assert stored.description_html == _fresh("A **bold** clip.")
    assert stored.instructions_html == _fresh("Print *slowly*.")
    assert documents_html(stored) == (stored.description_html, stored.instructions_html)


def test_a_service_update_renders_again():
    thing = ThingFactory(description="old")
    thing_update(thing=thing, data={"description": "new *text*"})
    stored = Thing.objects.get(pk=thing.pk)
    assert stored.description_html == _fresh("new *text*")


def test_save_with_update_fields_writes_the_html_with_the_texts():
    thing = ThingFactory(description="old")
    thing.description = "changed"
    thing.save(update_fields=["description"])
    assert Thing.objects.get(pk=thing.pk).description_html == _fresh("changed")


def test_a_text_changed_around_save_is_rendered_on_read_not_shown_stale(client_for, user):
    thing = ThingFactory(description="first")
    Thing.objects.filter(pk=thing.pk).update(description="second **version**")
    stored = Thing.objects.get(pk=thing.pk)
    assert stored.description_html == _fresh("first")  # the column is stale ...
    assert documents_html(stored)[0] == _fresh("second **version**")  # ... and never read
    body = client_for(user).get(f"/things/{thing.pk}/").json()
    assert body["description_html"] == _fresh("second **version**")
    assert "second" in body["details"]


def test_a_new_rendering_version_makes_every_stored_html_stale(monkeypatch):
    thing = Thing.objects.get(pk=ThingFactory(description="x").pk)
    assert documents_html(thing)[0] is thing.description_html
    monkeypatch.setattr(markup, "DOCUMENT_RENDERING", markup.DOCUMENT_RENDERING + 1)
    assert thing.documents_key != markup.documents_key(thing.description, thing.instructions)


def test_the_fill_writes_stale_rows_only_and_is_idempotent():
    current = ThingFactory(description="kept")
    stale = ThingFactory(description="before")
    Thing.objects.filter(pk=stale.pk).update(description="after *fill*")
    assert thing_documents_fill(batch=1) == 1
    assert Thing.objects.get(pk=stale.pk).description_html == _fresh("after *fill*")
    assert Thing.objects.get(pk=current.pk).description_html == _fresh("kept")
    assert thing_documents_fill() == 0
    call_command("things_documents_fill")  # the operator's command runs the same service


def test_the_site_page_shows_the_current_text(client):
    thing = ThingFactory(description="page text")
    Thing.objects.filter(pk=thing.pk).update(description="edited **page** text")
    page = client.get(f"/thing:{thing.pk}").content.decode()
    assert "<strong>page</strong>" in page
