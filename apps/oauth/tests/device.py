"""The device's and the person's steps of device sign-in (RFC 8628), driven through django.test.Client."""
import json
from datetime import timedelta
from urllib.parse import urlencode

from django.utils import timezone
from oauth2_provider.models import get_device_grant_model

from apps.oauth.tests.flow import TOKEN, parse_form

DEVICE_AUTHORIZATION = "/login/oauth/device_authorization"
DEVICE_PAGE = "/device"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def request_codes(client, app, **params) -> dict:
    """POST device_authorization as the device; the JSON answer (asserting a 200)."""
    response = client.post(
        DEVICE_AUTHORIZATION,
        urlencode({"client_id": app.client_id, **params}),
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200, response.content
    return response.json()


def poll(client, app, device_code, *, accept: str | None = None, **params):
    """One poll of the token endpoint as the device."""
    body = {"grant_type": DEVICE_GRANT, "client_id": app.client_id, "device_code": device_code, **params}
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    return client.post(TOKEN, urlencode(body), content_type="application/x-www-form-urlencoded", **headers)


def poll_error(response) -> str:
    assert response.status_code == 400, (response.status_code, response.content)
    return parse_form(response)["error"]


def wait_interval(device_code_grant=None) -> None:
    """The device waited its interval: every pending grant's last poll moves back a minute."""
    rows = get_device_grant_model().objects.all()
    if device_code_grant is not None:
        rows = rows.filter(pk=device_code_grant.pk)
    rows.filter(last_checked__isnull=False).update(last_checked=timezone.now() - timedelta(minutes=1))


def enter_code(browser, user_code: str):
    return browser.post(DEVICE_PAGE, {"user_code": user_code})


def decide(browser, user_code: str, *, allow: bool = True):
    """Enter the code, then press Allow (or Deny) on the consent page; the final response."""
    page = enter_code(browser, user_code)
    assert page.status_code == 200, page.content
    form = page.context["form"]
    data = {name: form[name].value() for name in form.fields}  # the hidden fields, as the page renders them
    if allow:
        data["allow"] = "Authorize"
    return browser.post(DEVICE_PAGE, data)


def as_json(response) -> dict:
    return json.loads(response.content)


def approve_over_http(live_url: str, session_cookie: str, user_code: str, *, allow: bool = True) -> str:
    """The person's steps on a live server, as a browser takes them: open /device?user_code=…, press
    Continue, then Allow (or Deny). `session_cookie` is a signed-in session's. Returns the result page."""
    import re

    import requests
    from django.conf import settings

    session = requests.Session()
    session.cookies.set(settings.SESSION_COOKIE_NAME, session_cookie)
    url = f"{live_url}{DEVICE_PAGE}"

    def hidden(html: str) -> dict:
        return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html))

    entry = session.get(url, params={"user_code": user_code}, timeout=10)
    assert entry.status_code == 200 and f'value="{user_code}"' in entry.text, entry.status_code
    consent = session.post(url, data={**hidden(entry.text), "user_code": user_code}, headers={"Referer": url}, timeout=10)
    assert consent.status_code == 200 and "Allow" in consent.text, (consent.status_code, consent.text[:300])
    form = hidden(consent.text)
    if allow:
        form["allow"] = "Authorize"
    done = session.post(url, data=form, headers={"Referer": url}, timeout=10)
    assert done.status_code == 200, (done.status_code, done.text[:300])
    return done.text
