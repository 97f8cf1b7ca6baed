"""Reports, the moderators' queue and appeals (issue 26): a member reports, a moderator hides from the
queue with a reason, the owner is told (message and the Thing's page) and appeals once."""

import re
from typing import Any
from urllib.parse import urljoin

import pytest
from django.test import Client

from apps.accounts.models import Message
from apps.accounts.tests.factories import UserFactory
from apps.comments.tests.factories import CommentFactory
from apps.makes.tests.factories import MakeFactory
from apps.reports.models import Appeal, Report
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def moderator(db):
    return UserFactory(is_staff=True, is_superuser=True)


@pytest.fixture
def thing(db):
    return ThingFactory(name="Suspicious Widget")


def _report(reporter, kind, target_id, reason="spam", details=""):
    return _signed_in(reporter).post(f"/report/{kind}/{target_id}", {"reason": reason, "details": details})


# --- reporting -----------------------------------------------------------------------------------------


def test_a_member_reports_a_thing_with_a_reason(user, thing):
    page = _signed_in(user).get(f"/report/thing/{thing.pk}")
    assert page.status_code == 200 and "Suspicious Widget" in page.content.decode()
    response = _report(user, "thing", thing.pk, reason="rights", details="Copied from example.org/x")
    assert response.status_code == 302
    report = Report.objects.get()
    assert (report.kind, report.target_id, report.reason, report.reporter, report.owner) == (
        "thing", thing.pk, "rights", user, thing.creator,
    )


@pytest.mark.parametrize("kind", ["comment", "make", "user"])
def test_comments_makes_and_members_can_be_reported(user, kind):
    factory = {"comment": CommentFactory, "make": MakeFactory, "user": UserFactory}[kind]
    target: Any = factory()
    assert _report(user, kind, target.pk).status_code == 302
    assert Report.objects.filter(kind=kind, target_id=target.pk).count() == 1


def test_reporting_twice_keeps_one_open_report(user, thing):
    _report(user, "thing", thing.pk)
    _report(user, "thing", thing.pk)
    assert Report.objects.count() == 1


def test_a_report_needs_a_reason_and_a_session(user, thing):
    assert _report(user, "thing", thing.pk, reason="").status_code == 400
    anonymous = Client().post(f"/report/thing/{thing.pk}", {"reason": "spam"})
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login/")
    assert not Report.objects.exists()


def test_one_cannot_report_ones_own_thing(thing):
    response = _report(thing.creator, "thing", thing.pk)
    assert response.status_code == 400 and "cannot report" in response.content.decode()


def test_unknown_kinds_and_items_are_404(user):
    assert _report(user, "planet", 1).status_code == 404
    assert _report(user, "thing", 999_999).status_code == 404


def test_too_long_details_are_refused_with_the_limit(user, thing):
    response = _report(user, "thing", thing.pk, details="x" * 2001)
    assert response.status_code == 400
    assert not Report.objects.exists()


# --- the queue ------------------------------------------------------------------------------------------


def test_the_queue_lists_open_reports(moderator, user, thing):
    _report(user, "thing", thing.pk, details="looks copied")
    html = _signed_in(moderator).get("/admin/reports/report/").content.decode()
    assert "Suspicious Widget" in html and "looks copied" in html


def test_hiding_from_the_queue_hides_tells_the_owner_and_closes_the_reports(moderator, user, other_user, thing):
    _report(user, "thing", thing.pk)
    _report(other_user, "thing", thing.pk)
    report = Report.objects.first()
    assert report is not None
    admin = _signed_in(moderator)
    response = admin.post(
        "/admin/reports/report/",
        {"action": "hide_targets", "_selected_action": [report.pk], "apply": "1", "note": "Copied design."},
    )
    assert response.status_code == 302
    thing.refresh_from_db()
    assert thing.is_hidden and thing.hidden_reason == "Copied design." and thing.hidden_by == moderator
    assert not Report.objects.filter(status="open").exists()  # both reports of the Thing closed
    notice = Message.objects.get(recipient=thing.creator)
    assert "Copied design." in notice.body and "appeal" in notice.body
    # Gone for everyone else, API and site.
    assert Client().get(f"/thing:{thing.pk}").status_code == 404


def test_warn_and_suspend_from_the_queue(moderator, user, thing):
    _report(user, "thing", thing.pk)
    admin = _signed_in(moderator)
    report = Report.objects.get()
    admin.post("/admin/reports/report/", {"action": "warn_owners", "_selected_action": [report.pk], "apply": "1",
                                          "note": "Please credit the original."})
    assert "Please credit the original." in Message.objects.get(recipient=thing.creator).body
    _report(user, "user", thing.creator.pk)
    second = Report.objects.get(kind="user")
    admin.post("/admin/reports/report/", {"action": "suspend_owners", "_selected_action": [second.pk], "apply": "1",
                                          "note": "Repeated copying."})
    thing.creator.refresh_from_db()
    assert not thing.creator.is_active and thing.creator.suspended_reason == "Repeated copying."


# --- the owner's notice and appeal -------------------------------------------------------------------------


def _hide(moderator, thing, reason="Copied design."):
    from apps.reports.services import item_hide

    item_hide(kind="thing", item=Thing.objects.get(pk=thing.pk), reason=reason, moderator=moderator)


def test_the_owner_sees_why_the_thing_is_hidden_and_others_get_404(moderator, thing, user):
    _hide(moderator, thing)
    html = _signed_in(thing.creator).get(f"/thing:{thing.pk}").content.decode()
    assert "A moderator hid this Thing" in html and "Copied design." in html
    assert f"/appeal/thing/{thing.pk}" in html
    assert _signed_in(user).get(f"/thing:{thing.pk}").status_code == 404


def test_the_owner_appeals_once_and_a_granted_appeal_shows_the_thing_again(moderator, thing):
    _hide(moderator, thing)
    owner = _signed_in(thing.creator)
    assert owner.post(f"/appeal/thing/{thing.pk}", {"text": "It is my own design."}).status_code == 302
    again = owner.post(f"/appeal/thing/{thing.pk}", {"text": "Please!"})
    assert again.status_code == 400 and "already appealed" in again.content.decode()
    appeal = Appeal.objects.get()
    assert appeal.hidden_reason == "Copied design."

    _signed_in(moderator).post(
        "/admin/reports/appeal/",
        {"action": "grant", "_selected_action": [appeal.pk], "apply": "1", "note": "Sorry, our mistake."},
    )
    thing.refresh_from_db()
    assert not thing.is_hidden
    assert Client().get(f"/thing:{thing.pk}").status_code == 200
    assert "Sorry, our mistake." in Message.objects.filter(recipient=thing.creator).latest("id").body


def test_staff_see_a_hidden_items_page_without_a_report_link_that_would_lead_nowhere(moderator, thing, user):
    # Staff still see a hidden Thing, its makes and comments; reporting what is hidden already is refused
    # (404), so the page offers no link to it. A visible item's link is offered and answers.
    make = MakeFactory(thing=thing)
    comment = CommentFactory(thing=thing, user=user)
    staff = _signed_in(moderator)
    assert f"/report/thing/{thing.pk}" in staff.get(f"/thing:{thing.pk}").content.decode()
    assert staff.get(f"/report/thing/{thing.pk}").status_code == 200
    _hide(moderator, thing)
    from apps.core.domain.moderation import moderation_hide

    moderation_hide(obj=make, reason="x", by=moderator)
    moderation_hide(obj=comment, reason="x", by=moderator)
    page = staff.get(f"/thing:{thing.pk}").content.decode()
    assert f"/report/thing/{thing.pk}" not in page and f"/report/comment/{comment.pk}" not in page
    assert f"/report/make/{make.pk}" not in staff.get(f"/make:{make.pk}").content.decode()
    assert staff.get(f"/report/thing/{thing.pk}").status_code == 404


def test_only_the_owner_may_appeal(moderator, thing, user):
    _hide(moderator, thing)
    assert _signed_in(user).post(f"/appeal/thing/{thing.pk}", {"text": "Mine!"}).status_code == 404
    assert not Appeal.objects.exists()


# --- hide and unhide buttons on an item's own admin page ------------------------------------------------


def _first_group(pattern: str, page: str) -> str:
    found = re.search(pattern, page, re.S)
    assert found is not None, pattern
    return found[1]


def test_the_things_admin_page_hides_and_unhides_it(moderator, thing):
    # The button and the form are followed as a browser would: their addresses resolved against the page's
    # own (…/<id>/change/), where a relative "hide/" once named no page.
    admin = _signed_in(moderator)
    change = f"/admin/things/thing/{thing.pk}/change/"
    hide = urljoin(change, _first_group(r'<a href="([^"]+)" class="historylink">Hide', admin.get(change).content.decode()))
    assert hide == f"/admin/things/thing/{thing.pk}/hide/"
    assert admin.get(hide).status_code == 200
    admin.post(hide, {"reason": "Broken model."})
    thing.refresh_from_db()
    assert thing.is_hidden and thing.hidden_reason == "Broken model."
    page = admin.get(change).content.decode()
    unhide = urljoin(change, _first_group(r'<form method="post" action="([^"]+)"[^>]*>.*?Unhide</button>', page))
    assert unhide == f"/admin/things/thing/{thing.pk}/unhide/"
    admin.post(unhide)
    thing.refresh_from_db()
    assert not thing.is_hidden


def test_the_hide_button_needs_the_change_permission(thing):
    viewer = UserFactory(is_staff=True)
    response = _signed_in(viewer).post(f"/admin/things/thing/{thing.pk}/hide/", {"reason": "x"})
    assert response.status_code in (403, 302)
    thing.refresh_from_db()
    assert not thing.is_hidden
