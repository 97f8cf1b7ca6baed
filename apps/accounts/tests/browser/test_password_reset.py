"""A member who forgot the password gets back in, in headless Chromium: "Forgot your password?" on the
log-in page, the link read from the mail file (the file backend the quick start uses), a new password,
and a log-in with it (issue 26)."""

import re
from pathlib import Path

import pytest

from apps.accounts.tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_PASSWORD = "correct-horse-battery-9"


def _mail_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime)


def test_a_member_resets_the_password_from_the_mail_file(visitor, live_server, settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    member = UserFactory(username="forgetful", email="forgetful@example.com")

    page = visitor()
    page.goto(f"{live_server.url}/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("E-mail address").fill("forgetful@example.com")
    page.get_by_role("button", name="Send me a reset link").click()
    page.get_by_role("heading", name="Check your mail").wait_for()

    files = _mail_files(tmp_path)
    assert len(files) == 1
    text = files[0].read_text()
    assert "To: forgetful@example.com" in text
    found = re.search(r"(http://\S+/reset/\S+/)", text)
    assert found is not None, text
    link = found.group(1)

    page.goto(link)
    page.get_by_role("heading", name="Choose a new password").wait_for()
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set my password").click()
    page.get_by_role("heading", name="Your password is set").wait_for()

    page.get_by_role("link", name="Log in").last.click()
    page.get_by_label("Username").fill("forgetful")
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r".*/account/?$|.*/$"))
    member.refresh_from_db()
    assert member.check_password(NEW_PASSWORD)
    # The "password changed" notice went to the member as a second mail file.
    assert any("Your Thingyard password was changed" in f.read_text() for f in _mail_files(tmp_path))
