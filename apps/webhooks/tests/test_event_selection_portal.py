"""The app page's webhook event selection (templates/developers/_webhook_events.html and its view)."""
import pytest
from django.test import Client
from django.urls import reverse

from apps.oauth.tests.factories import ApplicationFactory
from apps.webhooks import catalog, selectors
from apps.webhooks.models import EventSelection

pytestmark = pytest.mark.django_db


@pytest.fixture
def app(owner):
    return ApplicationFactory(user=owner, webhook_url="https://hooks.example.com/in")


def _url(app):
    return reverse("developers:app-webhook-events", args=[app.pk])


def test_the_app_page_shows_every_event_with_the_order_events_ticked(owner_client, app):
    html = owner_client.get(reverse("developers:app-detail", args=[app.pk])).content.decode()
    assert 'id="webhook-events"' in html
    for spec in catalog.EVENTS:
        checked = f'value="{spec.name}" checked' in html
        assert checked == spec.default, spec.name


def test_saving_a_selection_stores_it_and_returns_to_the_app_page(owner_client, app):
    response = owner_client.post(_url(app), {"events": ["thing_created", "order_created", "make_deleted"]})
    assert response.status_code == 302
    assert response["Location"].endswith(f"/developers/apps/{app.pk}/#webhook-events")
    assert EventSelection.objects.get(application=app).events == ["order_created", "thing_created", "make_deleted"]
    html = owner_client.get(_url(app)).content.decode()
    assert 'value="thing_created" checked' in html and 'value="refund_requested" checked' not in html


def test_saving_nothing_turns_every_event_off(owner_client, app):
    assert owner_client.post(_url(app), {}).status_code == 302
    assert selectors.application_events(application=app) == frozenset()


def test_an_unknown_event_is_a_400_with_the_choice_kept(owner_client, app):
    response = owner_client.post(_url(app), {"events": ["thing_created", "thing_exploded"]})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="webhook-events-errors"' in html and "thing_exploded" in html
    assert 'value="thing_created" checked' in html
    assert not EventSelection.objects.exists()


def test_only_the_owner_may_see_or_change_the_selection(stranger_client, app):
    assert stranger_client.get(_url(app)).status_code == 404
    assert stranger_client.post(_url(app), {"events": ["thing_created"]}).status_code == 404
    assert not EventSelection.objects.exists()


def test_anonymous_is_sent_to_log_in(client, app):
    response = client.post(_url(app), {"events": ["thing_created"]})
    assert response.status_code == 302 and "login" in response["Location"]
    assert not EventSelection.objects.exists()


def test_the_selection_needs_the_csrf_token(owner, app):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(_url(app), {"events": ["thing_created"]}).status_code == 403
    assert not EventSelection.objects.exists()
