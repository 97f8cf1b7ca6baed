"""Moderators hide groups in the admin with a reason (issue 5, core.moderation), and unhide them."""
import pytest
from django.contrib.admin import helpers
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.groups.models import Group
from apps.groups.tests.factories import GroupFactory

pytestmark = pytest.mark.django_db

GROUPS = "/admin/groups/group/"


@pytest.fixture
def moderator(db):
    return UserFactory(is_staff=True, is_superuser=True)


@pytest.fixture
def admin_browser(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def _post(admin_browser, action, groups, **extra):
    return admin_browser.post(GROUPS, {"action": action, helpers.ACTION_CHECKBOX_NAME: [g.pk for g in groups],
                                       **extra})


def test_the_changelist_and_change_page_work_with_moderation_read_only(admin_browser):
    group = GroupFactory()
    assert admin_browser.get(GROUPS, {"q": group.name, "is_hidden__exact": "0"}).status_code == 200
    page = admin_browser.get(f"{GROUPS}{group.pk}/change/")
    assert page.status_code == 200
    form = page.context["adminform"].form
    assert "is_hidden" not in form.fields and "hidden_reason" not in form.fields and "name" in form.fields


def test_hide_asks_for_the_reason_first(admin_browser):
    group = GroupFactory()
    response = _post(admin_browser, "hide_with_reason", [group])
    assert response.status_code == 200 and b'name="reason"' in response.content
    assert not Group.objects.get(pk=group.pk).is_hidden


def test_hide_without_a_reason_hides_nothing(admin_browser):
    group = GroupFactory()
    response = _post(admin_browser, "hide_with_reason", [group], apply="1", reason=" ")
    assert response.status_code == 200 and "reason" in response.context["form"].errors
    assert not Group.objects.get(pk=group.pk).is_hidden


def test_hide_keeps_the_reason_and_the_group_leaves_the_api(admin_browser, moderator, client_for):
    group = GroupFactory()
    owner_api = client_for(group.creator)
    response = _post(admin_browser, "hide_with_reason", [group], apply="1", reason="Harassment.")
    assert response.status_code == 302
    group.refresh_from_db()
    assert (group.is_hidden, group.hidden_reason, group.hidden_by) == (True, "Harassment.", moderator)
    assert owner_api.get(f"/groups/{group.pk}/").status_code == 404
    assert client_for(moderator).get(f"/groups/{group.pk}/").status_code == 200


def test_unhide_restores_the_group(admin_browser, client_for):
    group = GroupFactory(name="Back again")
    _post(admin_browser, "hide_with_reason", [group], apply="1", reason="Spam.")
    assert _post(admin_browser, "unhide", [group]).status_code == 302
    group.refresh_from_db()
    assert (group.is_hidden, group.hidden_reason, group.hidden_at) == (False, "", None)
    assert client_for(group.creator).get(f"/groups/{group.pk}/").json()["name"] == "Back again"
