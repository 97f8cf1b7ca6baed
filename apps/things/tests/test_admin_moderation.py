"""Moderators hide Things in the admin with a reason (issue 5, core.moderation), and unhide them."""
import pytest
from django.contrib.admin import helpers
from django.contrib.auth.models import Permission
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

THINGS = "/admin/things/thing/"


@pytest.fixture
def moderator(db):
    return UserFactory(is_staff=True, is_superuser=True)


@pytest.fixture
def admin_browser(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def _hide(admin_browser, things, **extra):
    data = {"action": "hide_with_reason", helpers.ACTION_CHECKBOX_NAME: [t.pk for t in things], **extra}
    return admin_browser.post(THINGS, data)


def test_the_changelist_offers_hide_and_unhide_next_to_feature(admin_browser):
    ThingFactory()
    response = admin_browser.get(THINGS)
    choices = {name for name, _ in response.context["action_form"].fields["action"].choices}
    assert {"feature_things", "unfeature_things", "hide_with_reason", "unhide"} <= choices


def test_hide_asks_for_the_reason_on_an_intermediate_page_first(admin_browser):
    thing = ThingFactory()
    response = _hide(admin_browser, [thing])
    assert response.status_code == 200
    assert response.templates[0].name == "core/admin/hide_confirm.html"
    assert b'name="reason"' in response.content and thing.name.encode() in response.content
    assert not Thing.objects.get(pk=thing.pk).is_hidden


@pytest.mark.parametrize("reason", ["", "   "])
def test_hide_without_a_reason_asks_again_and_hides_nothing(admin_browser, reason):
    thing = ThingFactory()
    response = _hide(admin_browser, [thing], apply="1", reason=reason)
    assert response.status_code == 200
    assert "reason" in response.context["form"].errors
    assert not Thing.objects.get(pk=thing.pk).is_hidden


def test_hide_with_a_reason_keeps_it_and_the_thing_leaves_the_api(admin_browser, moderator, client_for):
    thing, other = ThingFactory(), ThingFactory()
    creator_api = client_for(thing.creator)
    assert creator_api.get(f"/things/{thing.pk}/").status_code == 200
    response = _hide(admin_browser, [thing], apply="1", reason="  Infringes a registered design.  ")
    assert response.status_code == 302
    thing.refresh_from_db()
    assert thing.is_hidden and thing.hidden_reason == "Infringes a registered design."
    assert thing.hidden_by == moderator and thing.hidden_at is not None
    assert not Thing.objects.get(pk=other.pk).is_hidden
    assert creator_api.get(f"/things/{thing.pk}/").status_code == 404
    assert client_for(moderator).get(f"/things/{thing.pk}/").status_code == 200


def test_hiding_again_keeps_the_first_reason(admin_browser):
    thing = ThingFactory()
    _hide(admin_browser, [thing], apply="1", reason="First reason.")
    _hide(admin_browser, [thing], apply="1", reason="Second reason.")
    assert Thing.objects.get(pk=thing.pk).hidden_reason == "First reason."


def test_unhide_restores_the_thing_unchanged(admin_browser, client_for):
    thing = ThingFactory(name="Comeback bracket", like_count=3)
    _hide(admin_browser, [thing], apply="1", reason="Spam?")
    response = admin_browser.post(THINGS, {"action": "unhide", helpers.ACTION_CHECKBOX_NAME: [thing.pk]})
    assert response.status_code == 302
    thing.refresh_from_db()
    assert (thing.is_hidden, thing.hidden_reason, thing.hidden_at, thing.hidden_by) == (False, "", None, None)
    body = client_for(UserFactory()).get(f"/things/{thing.pk}/").json()
    assert (body["name"], body["like_count"], body["is_published"]) == ("Comeback bracket", 3, True)


def test_the_changelist_filters_and_the_change_page_shows_moderation_read_only(admin_browser):
    hidden, shown = ThingFactory(), ThingFactory()
    _hide(admin_browser, [hidden], apply="1", reason="Spam.")
    filtered = admin_browser.get(THINGS, {"is_hidden__exact": "1"})
    assert list(filtered.context["cl"].result_list) == [hidden]
    page = admin_browser.get(f"{THINGS}{hidden.pk}/change/")
    assert page.status_code == 200
    assert "is_hidden" not in page.context["adminform"].form.fields
    assert b"Spam." in page.content
    assert shown.pk not in [t.pk for t in filtered.context["cl"].result_list]


def test_staff_who_may_only_view_things_are_not_offered_hide(db):
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_thing"))
    browser = Client()
    browser.force_login(viewer)
    thing = ThingFactory()
    assert browser.get(THINGS).context["action_form"] is None  # every action needs the change permission
    data = {"action": "hide_with_reason", helpers.ACTION_CHECKBOX_NAME: [thing.pk], "apply": "1", "reason": "x"}
    browser.post(THINGS, data)
    assert not Thing.objects.get(pk=thing.pk).is_hidden
