"""The moderators' admin in headless Chromium (issue 16): from the admin index to the dashboard, approving
an application and rejecting another with a reason from their own admin pages, "View on site" of a
hidden Thing landing on its page with the moderation banner, and a Thing hidden and unhidden with the
buttons of its own admin page."""
import re

import pytest

from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide
from apps.developers import services as developer_services
from apps.oauth.tests.factories import ApplicationFactory
from apps.things.tests.factories import ThingFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_moderator_approves_and_rejects_apps_and_views_a_hidden_thing_on_the_site(signed_in, live_server):
    moderator = UserFactory(username="mod_cho", is_staff=True, is_superuser=True)
    owner = UserFactory()
    farm = ApplicationFactory(name="Print Farm", user=owner, approval_state="pending")
    spam = ApplicationFactory(name="Spam Cannon", user=owner, approval_state="pending")
    for app in (farm, spam):
        developer_services.application_submit_for_review(application=app, submitted_by=owner)
    thing = ThingFactory(name="Suspicious bracket")
    moderation_hide(obj=thing, reason="Copied without credit", by=moderator)

    page = signed_in(moderator)
    page.goto(f"{live_server.url}/admin/")
    page.get_by_role("link", name="Moderation dashboard").click()
    page.wait_for_url(re.compile(r"/admin/moderation/$"))
    assert page.locator("#panel-hidden").get_by_text("Copied without credit").is_visible()
    review = page.locator("#panel-apps-review")
    assert review.get_by_role("link", name="Spam Cannon").is_visible()

    review.get_by_role("link", name="Print Farm").click()
    page.wait_for_url(re.compile(rf"/admin/oauth/application/{farm.pk}/change/$"))
    page.locator("#app-approve").click()
    page.wait_for_url(re.compile(rf"/admin/oauth/application/{farm.pk}/change/$"))
    assert page.get_by_text("Approved “Print Farm”.").is_visible()
    assert page.locator("#app-approve").is_disabled()
    farm.refresh_from_db()
    assert farm.approval_state == "approved" and farm.reviewed_by == moderator

    page.goto(f"{live_server.url}/admin/moderation/")
    page.locator("#panel-apps-review").get_by_role("link", name="Spam Cannon").click()
    page.locator("#app-reject").click()
    page.locator("#reject-form").get_by_role("button", name="Reject").click()  # no reason: the browser refuses
    assert page.locator("#id_reason:invalid").count() == 1
    page.fill("#id_reason", "   ")  # only blanks: the server refuses
    page.locator("#reject-form").get_by_role("button", name="Reject").click()
    assert page.locator(".errorlist").is_visible()
    page.fill("#id_reason", "It only posts advertising.")
    page.locator("#reject-form").get_by_role("button", name="Reject").click()
    page.wait_for_url(re.compile(rf"/admin/oauth/application/{spam.pk}/change/$"))
    assert page.get_by_text("Rejected “Spam Cannon”.").is_visible()
    spam.refresh_from_db()
    assert (spam.approval_state, spam.approval_reason) == ("rejected", "It only posts advertising.")

    page.goto(f"{live_server.url}/admin/things/thing/{thing.pk}/change/")
    page.get_by_role("link", name="View on site").click()
    page.wait_for_url(re.compile(rf"/thing:{thing.pk}$"))
    banner = page.locator(f'[data-hidden-banner="{thing.pk}"]')
    assert banner.is_visible()
    assert "Copied without credit" in banner.inner_text() and "mod_cho" in banner.inner_text()
    assert page.get_by_role("heading", name="Suspicious bracket").is_visible()


def test_a_moderator_hides_and_unhides_a_thing_from_its_own_admin_page(signed_in, live_server):
    # The buttons are clicked, not their addresses typed: a relative "hide/" under …/<id>/change/ once led
    # to "not found" (docs/decisions.md, "Every link the site shows leads somewhere").
    moderator = UserFactory(username="mod_dee", is_staff=True, is_superuser=True)
    thing = ThingFactory(name="Questionable hinge")
    change = rf"/admin/things/thing/{thing.pk}/change/$"

    page = signed_in(moderator)
    page.goto(f"{live_server.url}/admin/things/thing/{thing.pk}/change/")
    page.get_by_role("link", name="Hide…").click()
    page.wait_for_url(re.compile(rf"/admin/things/thing/{thing.pk}/hide/$"))
    page.fill("#id_reason", "Traced from a paid model.")
    page.get_by_role("button", name="Hide").click()
    page.wait_for_url(re.compile(change))
    assert "Reason: Traced from a paid model." in page.locator(".errornote").inner_text()
    thing.refresh_from_db()
    assert thing.is_hidden and thing.hidden_reason == "Traced from a paid model."

    page.get_by_role("button", name="Unhide").click()
    page.wait_for_url(re.compile(change))
    assert page.get_by_role("link", name="Hide…").is_visible()
    thing.refresh_from_db()
    assert not thing.is_hidden
