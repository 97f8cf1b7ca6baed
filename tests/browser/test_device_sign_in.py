"""Device sign-in walked in headless Chromium (issue 27): a slicer asks for a code; the person opens
verification_uri_complete signed out, logs in, comes back with the code filled in, continues, sees the
consent page with the code to compare, allows, and the slicer's next poll gets its token."""
import re
from urllib.parse import urlencode

import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.device import DEVICE_AUTHORIZATION, poll, poll_error, wait_interval
from apps.oauth.tests.factories import ApplicationFactory
from apps.oauth.tests.flow import parse_form

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_person_signs_a_slicer_in_from_the_device_page(visitor, live_server, site_urls, screenshot):
    person = UserFactory(username="maker")
    slicer = ApplicationFactory(
        name="PrintSlicer", app_type="desktop", client_type="public", client_secret="", redirect_uris=""
    )
    device = Client()
    codes = device.post(
        DEVICE_AUTHORIZATION, urlencode({"client_id": slicer.client_id}), content_type="application/x-www-form-urlencoded"
    ).json()
    assert codes["verification_uri_complete"].startswith(live_server.url + "/device?user_code=")

    page = visitor()
    page.goto(codes["verification_uri_complete"])
    # Signed out: the log-in page first, then back to /device with the code filled in.
    assert "connect your device" in page.text_content("#login-device")
    page.fill("#id_username", person.username)
    page.fill("#id_password", "pass-word-123")
    page.click("form[action^='/login'] button[type=submit]")
    page.wait_for_url(re.compile(r"/device\?user_code="))
    assert page.input_value("#id_user_code") == codes["user_code"]
    screenshot(page, "device-code")
    page.click("#device-code-form button[type=submit]")

    page.wait_for_selector("#device-user-code")
    assert page.text_content("#device-user-code") == codes["user_code"]
    assert "Authorize PrintSlicer" in page.text_content("h1")
    assert poll_error(poll(device, slicer, codes["device_code"])) == "authorization_pending"
    screenshot(page, "device-consent")
    page.click("button[name=allow]")
    page.wait_for_selector("#device-result")
    assert page.text_content("#device-result") == "Device connected"

    wait_interval()
    answer = poll(device, slicer, codes["device_code"])
    assert answer.status_code == 200, answer.content
    token = parse_form(answer)["access_token"]
    me = Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert me.json()["name"] == "maker"


def test_a_mistyped_code_is_explained_on_the_page(signed_in, site_urls):
    page = signed_in(UserFactory())
    page.goto(f"{site_urls}/device")
    page.fill("#id_user_code", "BBBB-CCCC")
    page.click("#device-code-form button[type=submit]")
    page.wait_for_selector("#device-code-error")
    assert "That code is not valid" in page.text_content("#device-code-error")
