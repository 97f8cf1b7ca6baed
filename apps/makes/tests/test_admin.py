"""The makes admin: hide with a reason / unhide and delete go through services, so the Thing's
make_count stays the number of its visible makes."""
import pytest
from django.contrib.admin import helpers
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.makes import services
from apps.makes.models import Make
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

MAKES = "/admin/makes/make/"


@pytest.fixture
def admin_browser(db):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def thing():
    return ThingFactory()


@pytest.fixture
def make(thing):
    services.make_create(thing=thing, creator=UserFactory())
    return services.make_create(thing=thing, creator=UserFactory(), description="Spammy copy")


def _make_count(thing) -> int:
    return Thing.objects.get(pk=thing.pk).make_count


def test_the_changelist_shows_moderation_columns_and_searches(admin_browser, make):
    response = admin_browser.get(MAKES, {"q": "spammy"})
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [make]
    assert "hidden_reason" in response.context["cl"].list_display
    assert admin_browser.get(f"{MAKES}{make.pk}/change/").status_code == 200


def test_hiding_with_a_reason_asks_first_then_hides_and_recounts(admin_browser, thing, make):
    data = {"action": "hide_with_reason", helpers.ACTION_CHECKBOX_NAME: [make.pk]}
    confirm = admin_browser.post(MAKES, data)
    assert confirm.status_code == 200 and b"reason" in confirm.content
    assert not Make.objects.get(pk=make.pk).is_hidden

    admin_browser.post(MAKES, {**data, "apply": "1", "reason": "Advertising"})
    hidden = Make.objects.get(pk=make.pk)
    assert (hidden.is_hidden, hidden.hidden_reason) == (True, "Advertising")
    assert _make_count(thing) == 1

    admin_browser.post(MAKES, {"action": "unhide", helpers.ACTION_CHECKBOX_NAME: [make.pk]})
    assert not Make.objects.get(pk=make.pk).is_hidden
    assert _make_count(thing) == 2


def test_deleting_in_the_admin_keeps_make_count(admin_browser, thing, make):
    response = admin_browser.post(f"{MAKES}{make.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Make.objects.filter(pk=make.pk).exists()
    assert _make_count(thing) == 1
    other = Make.objects.get()
    admin_browser.post(MAKES, {"action": "delete_selected", helpers.ACTION_CHECKBOX_NAME: [other.pk], "post": "yes"})
    assert not Make.objects.exists()
    assert _make_count(thing) == 0


def test_makes_cannot_be_added_in_the_admin(admin_browser):
    assert admin_browser.get(f"{MAKES}add/").status_code == 403
