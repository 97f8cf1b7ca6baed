"""Report → queue → hide → the owner's notice, in headless Chromium (issue 26): a member reports a Thing
from its page, a moderator hides it from the admin's queue with a reason, the owner reads the reason on
the Thing's page and in the inbox, and others get 404."""

import pytest

from apps.accounts.tests.factories import UserFactory
from apps.things.tests.factories import ThingFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_report_reaches_the_queue_and_the_owner_learns_why(signed_in, live_server):
    owner = UserFactory(username="maker")
    reporter = UserFactory(username="watchful")
    moderator = UserFactory(username="mod", is_staff=True, is_superuser=True)
    thing = ThingFactory(creator=owner, name="Knock-off Vase")

    page = signed_in(reporter)
    page.goto(f"{live_server.url}/thing:{thing.pk}")
    page.get_by_role("link", name="Report this Thing").click()
    page.get_by_label("Copyright or someone else's design").check()
    page.get_by_label("Details for the moderators (optional)").fill("Same as the vase on another site.")
    page.get_by_role("button", name="Send the report").click()
    page.get_by_text("The moderators will look at your report").wait_for()

    admin = signed_in(moderator)
    admin.goto(f"{live_server.url}/admin/reports/report/")
    admin.get_by_text("Same as the vase on another site.").wait_for()
    admin.locator("input[name=_selected_action]").first.check()
    admin.locator("select[name=action]").select_option("hide_targets")
    admin.get_by_role("button", name="Go").click()
    admin.get_by_label("Reason (sent to each owner)").fill("A copy of someone else's design.")
    admin.get_by_role("button", name="Apply").click()
    admin.get_by_text("Hid 1 item(s).").wait_for()

    mine = signed_in(owner)
    response = mine.goto(f"{live_server.url}/thing:{thing.pk}")
    assert response.status == 200
    mine.get_by_text("A moderator hid this Thing").wait_for()
    mine.get_by_text("A copy of someone else's design.").first.wait_for()
    assert mine.get_by_role("link", name="Appeal this decision").is_visible()
    mine.goto(f"{live_server.url}/account/messages")
    assert "Knock-off Vase" in mine.content()

    other = signed_in(UserFactory(username="passerby"))
    assert other.goto(f"{live_server.url}/thing:{thing.pk}").status == 404
