"""A Thing event end to end, in headless Chromium against the live server: a user authorizes an app on the
consent page, the app (with the token it got) creates a Thing through the API, the event reaches the app's
real HTTP receiver on loopback signed with the app's secret; the user revokes the app on their account
page, and nothing more is sent."""
import base64
import hashlib
import hmac
import json
import re
import time
import urllib.parse
import urllib.request

import pytest

from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.factories import APP_SECRET, ApplicationFactory
from apps.things import services as thing_services
from apps.things.models import Thing
from apps.webhooks import services as webhook_services
from apps.webhooks import signing
from apps.webhooks.models import Delivery

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CALLBACK = "https://printfarm.example/callback"


def _post(url, data=None, *, json_body=None, token=None):
    headers = {"Accept": "application/json"}
    if json_body is not None:
        body = json.dumps(json_body).encode()
        headers["Content-Type"] = "application/json"
    else:
        body = urllib.parse.urlencode(data).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers, method="POST")) as answer:
        raw = answer.read()
        assert raw, (url, answer.status, dict(answer.headers))
        return json.loads(raw)


def test_a_thing_event_reaches_the_authorized_apps_receiver_signed_and_stops_after_revoking(
    signed_in, live_server, receiver, allow_private
):
    maker = UserFactory(username="maker")
    app = ApplicationFactory(name="Print Farm", redirect_uris=CALLBACK, webhook_url=receiver.url)
    webhook_services.webhook_events_select(application=app, events=["thing_created", "thing_updated"])

    page = signed_in(maker)
    page.route("https://printfarm.example/**", lambda route: route.fulfill(status=200, body="the app"))
    page.goto(f"{live_server.url}/login/oauth/authorize?client_id={app.client_id}&response_type=code"
              f"&redirect_uri={CALLBACK}&state=s1")
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(re.compile(r"^https://printfarm\.example/callback\?code=.+&state=s1(&iss=[^&]+)?$"))
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)["code"][0]
    token = _post(f"{live_server.url}/login/oauth/access_token", {
        "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK,
        "client_id": app.client_id, "client_secret": APP_SECRET,
    })["access_token"]

    created = _post(f"{live_server.url}/things/", json_body={"name": "Cable clip"}, token=token)
    assert receiver.wait_for(1), "the thing_created event did not arrive"
    request = receiver.requests[0]
    headers = {k.lower(): v for k, v in request["headers"].items()}
    # The receiver's own check, as docs/webhooks.md shows it: HMAC-SHA256 of "{id}.{timestamp}.{body}".
    key = base64.b64decode(app.webhook_secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + request["body"]
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    assert expected in headers["webhook-signature"].split(" ")
    body = signing.verify(secret=app.webhook_secret, headers=headers, body=request["body"])
    assert body["event"] == "thing_created"
    assert body["thing"]["id"] == created["id"] and body["thing"]["name"] == "Cable clip"
    assert body["thing"]["creator"]["name"] == "maker"

    page.goto(f"{live_server.url}/account/apps")
    page.get_by_role("link", name="Revoke…").click()  # revoking asks first (a confirmation page)
    page.get_by_role("button", name="Revoke access").click()
    page.wait_for_url(re.compile(r"/account/apps$"))
    assert "You have not authorized any applications." in page.locator("#main").inner_text()

    thing_services.thing_update(thing=Thing.objects.get(pk=created["id"]), data={"name": "Cable clip v2"})
    time.sleep(0.5)
    assert len(receiver.requests) == 1
    assert list(Delivery.objects.values_list("event", flat=True)) == ["thing_created"]
