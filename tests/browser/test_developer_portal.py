"""The developer portal's app page and the user's side of consent, in headless Chromium (issue 16):

1. a webhook endpoint that refuses connections shows a readable error on the app page, and the delivery
   turns green on the same page, without a reload, once the endpoint answers and the retry runs;
2. neither the app page (with a freshly shown, long secret) nor the opened delivery log is ever wider
   than the viewport, at 1280 and at 390 px; the Copy button copies the secret;
3. the consent page names the app, what it may do and where it redirects; revoking asks first.

`make screenshots` runs these with THINGYARD_SCREENSHOTS=1 and refreshes docs/img/portal-*.png.
"""
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import ApplicationFactory
from apps.webhooks import services as webhook_services
from apps.webhooks.models import Attempt, Delivery

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Endpoint:
    """A webhook receiver on a fixed loopback port that is started late: until then the port refuses."""

    def __init__(self, port: int):
        self.port = port
        self.bodies: list[bytes] = []
        self.server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                endpoint.bodies.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


@pytest.fixture
def endpoint(settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = True  # the receiver is on loopback
    found = Endpoint(_free_port())
    yield found
    found.stop()


def _logo_png() -> bytes:
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (96, 96), (10, 91, 181))
    ImageDraw.Draw(image).ellipse([18, 18, 78, 78], fill=(232, 89, 12))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _no_horizontal_overflow(page) -> None:
    width = page.evaluate("() => window.innerWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # …and no box is cut off either: every credential box and log block fits inside the viewport
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('.copybox, .copybox-value, .delivery, .log-pre, .attempt')]
              .filter(el => el.offsetParent !== null)
              .filter(el => el.getBoundingClientRect().right > window.innerWidth + 0.5
                         || (el.classList.contains('copybox-value') && el.scrollWidth > el.clientWidth + 1))
              .map(el => el.className + '#' + el.id)"""
    )
    assert overflowing == []


def test_a_failing_webhook_shows_a_readable_error_then_goes_green_without_a_reload(
    signed_in, live_server, endpoint, screenshot
):
    owner = UserFactory(username="hookdev")
    app = ApplicationFactory(
        user=owner, name="Order Relay", webhook_url=f"http://127.0.0.1:{endpoint.port}/hooks/thingyard"
    )
    page = signed_in(owner, viewport=DESKTOP)
    page.goto(f"{live_server.url}/developers/apps/{app.pk}/")
    page.get_by_role("button", name="Send test event").click()
    page.wait_for_url(re.compile(r"#webhook-deliveries$"))

    delivery = Delivery.objects.get(application=app)
    row = page.locator(f"#delivery-{delivery.pk}")
    refused = f"Connection refused: nothing accepts connections at 127.0.0.1:{endpoint.port}."
    assert row.locator(".delivery-error").inner_text() == refused
    assert row.get_attribute("data-status") == "pending"
    assert "Errno" not in page.content() and "HTTPConnection" not in page.content()
    page.evaluate("() => { window.__sameDocument = true; }")
    row.locator("summary").first.click()  # open it: polling must keep it open
    screenshot(page, "portal-delivery-failed")

    # The endpoint comes up; the retry (what a worker runs when it is due) gets through.
    endpoint.start()
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    retried = webhook_services.webhook_deliver(delivery_id=delivery.pk)
    assert retried is not None and retried.status == "succeeded"

    page.wait_for_selector(f"#delivery-{delivery.pk}[data-status=succeeded]", timeout=15_000)
    assert page.evaluate("() => window.__sameDocument === true")  # no reload happened
    fresh = page.locator(f"#delivery-{delivery.pk}")
    assert fresh.locator(".delivery-status").inner_text().strip().lower() == "delivered"
    assert fresh.locator("details").first.get_attribute("open") is not None
    assert "Attempt 2" in fresh.inner_text() and "HTTP 200" in fresh.inner_text()
    assert endpoint.bodies == [b'{"event":"ping"}']
    # polling stops once nothing is pending
    assert page.locator("#delivery-log").get_attribute("data-live") == "false"
    screenshot(page, "portal-delivery-log")


def test_the_app_page_never_overflows_with_a_long_secret_at_1280_and_390_px(
    signed_in, live_server, settings, screenshot
):
    owner = UserFactory(username="longsecret")
    page = signed_in(owner, viewport=DESKTOP)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(f"{live_server.url}/developers/apps/new")
    page.fill("#id_name", "Printer Buddy With A Rather Long Name For Its Header")
    page.fill("#id_description", "Sends Things to your printer.")
    page.fill("#id_info_url", "https://buddy.example.com/about")
    page.fill("#id_application_url", "https://buddy.example.com")
    page.fill(
        "#id_callback_url",
        "https://buddy.example.com/oauth/callback\nhttp://localhost:5173/oauth/callback/with/a/long/path/segment",
    )
    page.get_by_role("button", name="Register").click()
    page.wait_for_url(re.compile(r"/developers/apps/\d+/$"))
    secret = page.locator("#client-secret").inner_text().strip()
    assert len(secret) >= 64
    _no_horizontal_overflow(page)

    page.locator('[data-copy="client-secret"]').click()
    page.wait_for_function("() => document.querySelector('[data-copy=\"client-secret\"]').textContent === 'Copied'")
    assert page.evaluate("() => navigator.clipboard.readText()") == secret
    screenshot(page, "portal-app-desktop", full_page=True)

    app_url = page.url
    # A logo: uploaded from the page, then drawn from the object store in the header
    page.set_input_files("#id_logo", files=[{"name": "logo.png", "mimeType": "image/png", "buffer": _logo_png()}])
    page.get_by_role("button", name="Save logo").click()
    page.wait_for_url(re.compile(r"#logo$"))
    page.wait_for_function("() => { const img = document.querySelector('.app-head img.app-logo');"
                           " return img && img.complete && img.naturalWidth === 96; }")

    # Issue the read-only token too: also shown once, in a box that wraps.
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Issue read-only token").click()
    page.wait_for_selector("#readonly-token-value")
    _no_horizontal_overflow(page)

    phone = signed_in(owner, viewport=PHONE)
    phone.goto(app_url)
    _no_horizontal_overflow(phone)
    # the secret was shown once: now hidden, and the read-only token too
    assert phone.locator("#client-secret").count() == 0
    assert phone.locator("#readonly-token-value").count() == 0
    # a regenerated secret, shown once at 390 px, wraps inside its box
    phone.once("dialog", lambda dialog: dialog.accept())
    phone.get_by_role("button", name="Regenerate client secret").click()
    phone.wait_for_selector("#client-secret")
    assert phone.locator("#client-secret").inner_text().strip() != secret
    _no_horizontal_overflow(phone)
    screenshot(phone, "portal-app-390", full_page=True)


def test_the_opened_delivery_log_fits_at_1280_and_390_px(signed_in, live_server, screenshot):
    owner = UserFactory(username="logreader")
    app = ApplicationFactory(
        user=owner,
        name="Long Log",
        webhook_url="https://hooks.example.com/" + "very-long-path-segment/" * 8 + "endpoint?token=" + "x" * 80,
    )
    delivery = Delivery.objects.create(  # recorded as failed: nothing is sent
        application=app, event="order_created", message_id="msg_" + "0" * 32,
        payload={"event": "order_created", "order": {"id": 1, "note": "y" * 300}},
        status="failed", attempt_count=1,
        last_error="TLS certificate invalid: certificate has expired (hooks.example.com).",
    )
    Attempt.objects.create(
        delivery=delivery, number=1, url=app.webhook_url, started_at=timezone.now(), duration_ms=41,
        error="TLS certificate invalid: certificate has expired (hooks.example.com).",
        request_headers={"webhook-id": delivery.message_id, "webhook-signature": "v1," + "A" * 200},
    )
    for viewport in (DESKTOP, PHONE):
        page = signed_in(owner, viewport=viewport)
        page.goto(f"{live_server.url}/developers/apps/{app.pk}/#webhook-deliveries")
        page.locator(f"#delivery-{delivery.pk} summary").first.click()
        page.locator(f"#delivery-{delivery.pk} .attempt summary").first.click()
        assert page.locator(f"#delivery-{delivery.pk} .delivery-error").is_visible()
        _no_horizontal_overflow(page)
        if viewport is PHONE:
            page.locator(f"#delivery-{delivery.pk}").scroll_into_view_if_needed()
            page.evaluate("() => document.getElementById('webhook-deliveries').scrollIntoView()")
            screenshot(page, "portal-delivery-log-390")


def test_consent_names_the_app_and_the_redirect_host_and_revoking_asks_first(signed_in, live_server, screenshot):
    user = UserFactory(username="consenter")
    app = ApplicationFactory(
        name="Print Farm",
        description="Queues your prints.",
        redirect_uris="https://printfarm.example/callback",
        user=UserFactory(username="farmdev"),
    )
    page = signed_in(user, viewport=PHONE)
    page.route("https://printfarm.example/**", lambda route: route.fulfill(status=200, body="the app"))
    page.goto(
        f"{live_server.url}/login/oauth/authorize?client_id={app.client_id}&response_type=code"
        "&redirect_uri=https://printfarm.example/callback&state=s1"
    )
    assert page.locator("#consent-redirect").inner_text() == "you will be sent to printfarm.example"
    assert "farmdev" in page.locator(".consent-by").inner_text()
    assert page.locator("#consent-scopes li").all_inner_texts() == ["Read your data", "Change your data"]
    _no_horizontal_overflow(page)
    screenshot(page, "portal-consent-390", full_page=True)
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(re.compile(r"^https://printfarm\.example/callback\?code="))

    page.goto(f"{live_server.url}/account/apps")
    assert "Read your data" in page.locator(f"#authorized-app-{app.pk}").inner_text()
    page.get_by_role("link", name="Revoke…").click()
    page.wait_for_url(re.compile(rf"/account/apps/{app.pk}/revoke$"))
    assert AppAuthorization.objects.filter(user=user, application=app).exists()  # only asked so far
    page.get_by_role("button", name="Revoke access").click()
    page.wait_for_url(re.compile(r"/account/apps$"))
    assert not AppAuthorization.objects.filter(user=user, application=app).exists()


def test_the_other_portal_and_account_pages_fit_at_390_px(signed_in, live_server):
    from apps.oauth import services as oauth_services

    owner = UserFactory(username="everypage")
    app = ApplicationFactory(user=owner, name="An Application With A Name Long Enough To Wrap Somewhere")
    oauth_services.authorization_grant(application=app, user=owner, scope="read write")
    page = signed_in(owner, viewport=PHONE)
    for path in (
        "/developers/apps/",
        "/developers/apps/new",
        f"/developers/apps/{app.pk}/delete",
        "/account/apps",
        f"/account/apps/{app.pk}/revoke",
    ):
        page.goto(live_server.url + path)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"], path
