"""The walks issue 26 is done by, in headless Chromium:

1. a member who forgot the password resets it from the link in the mail file (the file backend the
   quick start uses, config/settings/local.py) and logs in with the new one;
2. a member reports a Thing, a moderator hides it from the report queue in the admin with a reason, and
   the owner is told why on the Thing's page and by message, with the way to appeal;
3. a program dropped on the edit page is refused with a clear error before any byte is uploaded;
4. "brackets" finds "Parametric Shelf Bracket" (stemming) and "calibraton" finds "Calibration cube"
   (typo tolerance, "did you mean").

(Follow → notification is the Social part's walk.)
"""

import re

import pytest

from apps.accounts.models import Message
from apps.accounts.tests.factories import UserFactory
from apps.reports.models import Report
from apps.search.services import thing_index_search
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import ThingFile

from .test_site_flows import drop_files

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
NEW_PASSWORD = "a much longer new passphrase 77"


def test_a_member_resets_a_forgotten_password_from_the_mail_file(visitor, live_server, settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    UserFactory(username="ada", email="ada@example.com")
    page = visitor(viewport=DESKTOP)
    page.goto(f"{live_server.url}/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.wait_for_url(re.compile(r"/password_reset/$"))
    page.get_by_label("E-mail address").or_(page.get_by_label("Email")).first.fill("ada@example.com")
    page.get_by_role("button", name="Send me a reset link").click()
    page.wait_for_url(re.compile(r"/password_reset/done/$"))

    mails = list(tmp_path.iterdir())
    assert len(mails) == 1, mails
    text = mails[0].read_text()
    assert "To: ada@example.com" in text
    found = re.search(r"https?://\S+/reset/[^/\s]+/[^/\s]+/", text)
    assert found is not None, text
    link = found.group(0)
    assert link.startswith(live_server.url)

    page.goto(link)
    page.wait_for_url(re.compile(r"/reset/[^/]+/set-password/$"))
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.get_by_role("button", name="Set my password").click()
    page.wait_for_url(re.compile(r"/reset/done/$"))

    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/login" not in url)
    assert page.locator("summary", has_text="ada").first.is_visible()
    # The link was for one use: opened again, it is refused.
    page.goto(link)
    assert page.get_by_role("heading", name="This link does not work any more").is_visible()


def test_a_report_goes_through_the_queue_to_a_hidden_thing_whose_owner_is_told_why(signed_in, live_server):
    ada = UserFactory(username="ada")
    bob = UserFactory(username="bob")
    moderator = UserFactory(username="mod_cho", is_staff=True, is_superuser=True)
    thing = ThingFactory(creator=ada, name="Totally original vase")

    # Bob reports it from the Thing's page.
    reporter = signed_in(bob, viewport=DESKTOP)
    reporter.goto(f"{live_server.url}/thing:{thing.pk}")
    reporter.get_by_role("link", name="Report this Thing").click()
    reporter.wait_for_url(re.compile(rf"/report/thing/{thing.pk}$"))
    reporter.locator("input[name=reason]").first.check()
    reporter.fill("#id_details", "Copied from a paid model, see the original shop page.")
    reporter.get_by_role("button", name="Send the report").click()
    reporter.wait_for_url(re.compile(rf"/thing:{thing.pk}$"))
    report = Report.objects.get(reporter=bob)
    assert (report.kind, report.target_id, report.status) == ("thing", thing.pk, Report.Status.OPEN)

    # The moderator hides it from the queue, with a reason.
    queue = signed_in(moderator, viewport=DESKTOP)
    queue.goto(f"{live_server.url}/admin/reports/report/")
    row = queue.locator("#result_list tbody tr", has_text="Totally original vase")
    row.locator("input.action-select").check()
    queue.select_option("select[name=action]", "hide_targets")
    queue.get_by_role("button", name="Go").click()
    queue.get_by_label("Reason (sent to each owner)").fill("Copied from a paid model without permission.")
    queue.get_by_role("button", name="Apply").click()
    queue.wait_for_url(re.compile(r"/admin/reports/report/"))
    assert queue.get_by_text("Hid 1 item(s).").is_visible()
    thing.refresh_from_db()
    assert thing.is_hidden and thing.hidden_reason == "Copied from a paid model without permission."
    report.refresh_from_db()
    assert report.status == Report.Status.ACTIONED

    # Others get a 404; the owner sees why on the Thing's page, can appeal, and has a message.
    reporter.goto(f"{live_server.url}/thing:{thing.pk}")
    assert reporter.get_by_role("heading", name="Totally original vase").count() == 0
    owner = signed_in(ada, viewport=DESKTOP)
    owner.goto(f"{live_server.url}/thing:{thing.pk}")
    notice = owner.locator(f'[data-hidden-notice="{thing.pk}"]')
    assert "Copied from a paid model without permission." in notice.inner_text()
    assert owner.get_by_role("link", name="Appeal this decision").is_visible()
    assert Message.objects.filter(
        recipient=ada, body__contains="Copied from a paid model without permission."
    ).exists()
    owner.get_by_role("link", name="Your messages").click()
    owner.wait_for_url(re.compile(r"/account/messages$"))
    assert owner.get_by_text(re.compile("Totally original vase")).first.is_visible()


def test_a_program_dropped_on_the_edit_page_is_refused_before_it_is_uploaded(signed_in, live_server, s3):
    ada = UserFactory(username="ada")
    thing = ThingFactory(creator=ada, name="Desk cable ring", is_published=False)
    page = signed_in(ada, viewport=DESKTOP)
    page.goto(f"{live_server.url}/thing:{thing.pk}/edit")
    posts = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    program = b"MZ\x90\x00" + b"\x00" * 60 + b"PE\x00\x00" + b"\x00" * 400
    drop_files(page, "[data-dropzone]", [("setup.exe", "application/x-msdownload", program)])
    item = page.locator(".upload-item[data-state=failed]")
    item.wait_for()
    assert "Programs and scripts (.exe) cannot be uploaded." in item.inner_text()
    assert not ThingFile.objects.filter(thing=thing).exists()
    # Nothing went to the object store (a browser upload posts there, outside the site).
    assert all(url.startswith(live_server.url) for url in posts), posts


def test_search_finds_brackets_by_its_stem_and_calibraton_by_did_you_mean(visitor, live_server, categories):
    bracket = ThingFactory(name="Parametric Shelf Bracket", description="An adjustable shelf bracket.")
    cube = ThingFactory(name="Calibration cube", description="A 20 mm calibration cube.", instructions="PLA.")
    ThingFactory(name="Desk cable ring", description="Keeps cables tidy.", instructions="PETG.")
    thing_index_search(thing_ids=list(Thing.objects.values_list("pk", flat=True)))
    page = visitor(viewport=DESKTOP)

    page.goto(f"{live_server.url}/")
    page.fill("#site-search-q", "brackets")
    page.press("#site-search-q", "Enter")
    page.wait_for_url(re.compile(r"/find\?q=brackets"))
    results = page.locator("#main")
    assert results.get_by_role("link", name="Parametric Shelf Bracket").first.is_visible()
    assert results.get_by_role("link", name="Desk cable ring").count() == 0

    page.fill("#site-search-q", "calibraton")
    page.press("#site-search-q", "Enter")
    page.wait_for_url(re.compile(r"/find\?q=calibraton"))
    did_you_mean = page.locator(".did-you-mean")
    assert "calibration" in did_you_mean.inner_text().lower()
    assert results.get_by_role("link", name="Calibration cube").first.is_visible()
    page.locator(".did-you-mean a").click()
    page.wait_for_url(re.compile(r"/find\?q=calibration"))
    assert page.locator("#main").get_by_role("link", name="Calibration cube").first.is_visible()
    assert bracket.pk and cube.pk
