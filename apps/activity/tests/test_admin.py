"""The events' admin (moved here from the accounts tests with the Event model: /admin/activity/event/)."""
import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.activity.tests.factories import EventFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_browser(db):
    admin = UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    return client


def test_event_admin_is_read_only(admin_browser):
    event = EventFactory()
    assert admin_browser.get("/admin/activity/event/").status_code == 200
    assert admin_browser.get("/admin/activity/event/add/").status_code == 403
    assert admin_browser.get(f"/admin/activity/event/{event.pk}/change/").status_code == 200  # view only
