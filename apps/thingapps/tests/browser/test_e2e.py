"""End to end in headless Chromium (spec §4.11): the example Thing app, on its own origin, in its iframe
on a Thing page, uses every SDK function against the real host; forged messages are ignored.

`make screenshots` runs these with THINGYARD_SCREENSHOTS=1 to refresh docs/img/thing-apps-*.png.
"""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from apps.accounts.tests.factories import UserFactory
from apps.oauth import services as oauth_services
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory
from apps.orders.models import Order
from apps.search.services import thing_index_search
from apps.thingcollections.tests.factories import CollectionThingFactory
from apps.things import services as thing_services
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category
from apps.uploads.tests.file_factories import ThingFileFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def register_app(origin: str, **kwargs):
    return ApplicationFactory(
        name=kwargs.pop("name", "Example app"),
        description="Shows every function of the Thingyard SDK.",
        app_type="thing",
        application_url=origin + "/",
        redirect_uris=origin + "/callback",
        authorization_grant_type="implicit",
        **kwargs,
    )


@pytest.fixture
def world(example_app, categories):
    """Ada's Thing with files, Things she designed, made, collected and liked, and the example app."""
    ada = UserFactory(username="ada", first_name="Ada", last_name="Lovelace")
    bob = UserFactory(username="bob")
    thing = ThingFactory(
        creator=ada, name="Cable clip", description="Holds two cables.", category=category("hobby")
    )
    for name in ("cable-clip.stl", "cable-clip-large.stl", "cable-clip.obj", "notes.txt"):
        ThingFileFactory(thing=thing, name=name)
    ThingFactory(creator=ada, name="Shelf bracket", description="A sturdy bracket.")
    ThingFactory(creator=ada, name="Draft hinge", is_published=False, published_at=None)
    liked = ThingFactory(creator=bob, name="Bob's wall bracket", description="Bracket for walls.")
    thing_services.thing_like(user=ada, thing=liked)
    CollectionThingFactory(collection__creator=ada, thing=ThingFactory(creator=bob, name="Desk organizer"))
    ThingFactory(creator=bob, name="Bracket for curtain rods", description="Curtain bracket.")
    thing_index_search(thing_ids=Thing.objects.values_list("pk", flat=True))
    return {
        "ada": ada,
        "bob": bob,
        "thing": thing,
        "liked": liked,
        "app": register_app(example_app),
        "origin": example_app,
    }


def app_frame(page, origin):
    page.wait_for_selector("iframe.thing-app-frame")
    for _ in range(100):
        frame = next((f for f in page.frames if f.url.startswith(origin)), None)
        if frame is not None:
            frame.wait_for_function("() => window.exampleResults && window.exampleResults.me")
            return frame
        page.wait_for_timeout(50)
    raise AssertionError("the app's frame never loaded")


_TWO_FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def press(page, app, selector):
    """Click the app's button `selector` in its cross-origin iframe, as a user would once the page is still.

    For a frame or two after the host's modal closes (the app's iframe stops being inert), Chromium can
    deliver a click to the host's <iframe> element instead of the app's document inside it: its hit-test
    data for the out-of-process frame is not updated yet. Playwright's checks run in the app's document
    and don't see that. So the host is let settle first (the modal closed, two animation frames), and a
    click that never reached the app (it counts the clicks it gets) is sent again, at most three times;
    a click that did reach it is never repeated, so no action of the app runs twice."""
    page.wait_for_function("() => !document.querySelector('dialog.thing-app-dialog').open")
    page.evaluate(_TWO_FRAMES)
    app.evaluate(
        "() => { if (window.clicksSeen === undefined) { window.clicksSeen = 0;"
        " addEventListener('click', () => { window.clicksSeen += 1; }, true); } }"
    )
    for _ in range(3):
        seen = app.evaluate("() => window.clicksSeen")
        app.click(selector)
        try:
            app.wait_for_function(f"() => window.clicksSeen > {seen}", timeout=2_000)
            return
        except PlaywrightTimeoutError:
            page.evaluate(_TWO_FRAMES)
    raise AssertionError(f"the app never received the click on {selector}")


def result_of(frame, action):
    frame.wait_for_function(f"() => window.exampleResults && window.exampleResults[{json.dumps(action)}]")
    return frame.evaluate(f"() => window.exampleResults[{json.dumps(action)}]")


def details(frame):
    text = frame.locator("#details").text_content()
    return json.loads(text) if text else None


def dialog(page, name):
    page.wait_for_selector(f"dialog.thing-app-dialog[open][data-dialog={name}]")
    frame = page.frame_locator("dialog.thing-app-dialog iframe")
    frame.locator("main").wait_for()
    return frame


def test_the_example_app_uses_every_sdk_function(signed_in, world, screenshot, live_server):
    ada, thing, origin = world["ada"], world["thing"], world["origin"]
    page = signed_in(ada)
    page.goto(f"{live_server.url}/thing:{thing.pk}")

    # Authorize once: the consent page, then back to the Thing page with the app open.
    page.get_by_role("button", name="Open Example app").click()
    page.wait_for_url(re.compile(r"/thing-apps/authorize"))
    assert "Authorize Example app" in page.content()
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(re.compile(rf"/thing:{thing.pk}\?app="))
    app = app_frame(page, origin)
    assert AppAuthorization.objects.filter(user=ada, application=world["app"]).exists()

    # api('/users/me') with the token from the launch fragment (CORS from the app's origin).
    assert app.evaluate("() => window.exampleResults.me.name") == "ada"
    assert "for ada" in app.locator("#user").text_content()
    screenshot(page, "thing-apps-host")

    press(page, app, "#echo")
    assert result_of(app, "echo") == {"foo": "bar", "n": 1}

    # file_select: the Thing's .stl files only; picking one answers {thing_id, file_id}.
    press(page, app, "#file-select")
    files = dialog(page, "file_select")
    names = files.locator(".pick-name").all_text_contents()
    assert names == ["cable-clip.stl", "cable-clip-large.stl"]
    screenshot(page, "thing-apps-file_select")
    files.get_by_role("button", name=re.compile("cable-clip-large.stl")).click()
    result = result_of(app, "file_select")
    assert result["status"] == "ok" and result["thing_id"] == thing.pk
    assert thing.files.get(pk=result["file_id"]).name == "cable-clip-large.stl"
    app.wait_for_function("() => document.querySelector('#details').textContent.includes('cable-clip-large')")
    assert not page.locator("dialog.thing-app-dialog").is_visible()

    # Cancel gives {status: "cancelled"}.
    app.evaluate("() => { delete window.exampleResults.file_select; }")
    press(page, app, "#file-select")
    dialog(page, "file_select").get_by_role("button", name="Cancel").click()
    assert result_of(app, "file_select") == {"status": "cancelled"}

    # thing_select: the user's Things, by designed, made, collected or liked.
    press(page, app, "#thing-select")
    things = dialog(page, "thing_select")
    assert things.locator(".pick-name").all_text_contents() == ["Draft hinge", "Shelf bracket", "Cable clip"]
    screenshot(page, "thing-apps-thing_select")
    things.get_by_role("link", name="Collected").click()
    things.get_by_text("Desk organizer").wait_for()
    things.get_by_role("link", name="Liked").click()
    things.get_by_role("button", name=re.compile("Bob's wall bracket")).click()
    assert result_of(app, "thing_select") == {"status": "ok", "thing_id": world["liked"].pk}

    # thing_search: the term pre-filled; the closing X is a cancel too.
    press(page, app, "#thing-search")
    search = dialog(page, "thing_search")
    assert search.locator("input[name=q]").input_value() == "bracket"
    assert "Bob's wall bracket" in search.locator(".pick-list").text_content()
    assert "Cable clip" not in search.locator(".pick-list").text_content()
    screenshot(page, "thing-apps-thing_search")
    search.locator("input[name=q]").fill("curtain")
    search.get_by_role("button", name="Search").click()
    # The "bracket" results list the curtain bracket too: wait for the new page, or the click could land
    # on the old one as it goes.
    search.get_by_role("button", name=re.compile("Bob's wall bracket")).wait_for(state="detached")
    search.get_by_role("button", name=re.compile("Bracket for curtain rods")).click()
    curtain = Thing.objects.get(name="Bracket for curtain rods")
    assert result_of(app, "thing_search") == {"status": "ok", "thing_id": curtain.pk}

    # thing_save: a form prefilled from the app's params; its result is the body of POST /things/.
    press(page, app, "#thing-save")
    form = dialog(page, "thing_save")
    assert form.locator("#id_name").input_value() == "Awesome Thing"
    assert form.locator("#id_tags").input_value() == "iframe, app"
    assert form.locator("#id_category").input_value() == "Hobby"
    assert form.locator("#id_is_wip").is_checked()
    screenshot(page, "thing-apps-thing_save")
    form.locator("#id_description").fill("Made with the example app, edited in the dialog.")
    form.get_by_role("button", name="Save").click()
    result = result_of(app, "thing_save")
    assert result == {
        "status": "ok",
        "is_published": False,
        "thing": {
            "name": "Awesome Thing",
            "description": "Made with the example app, edited in the dialog.",
            "license": "cc-sa",
            "category": "Hobby",
            "tags": ["iframe", "app"],
            "is_wip": True,
        },
    }
    app.wait_for_function("() => document.querySelector('#details').textContent.includes('created_id')")
    created = Thing.objects.get(pk=details(app)["created_id"])
    assert created.category is not None
    assert (created.creator, created.name, created.category.name) == (ada, "Awesome Thing", "Hobby")
    assert sorted(created.tags.values_list("name", flat=True)) == ["app", "iframe"]

    # Editing: prefilled from the Thing; Escape cancels.
    press(page, app, "#thing-edit")
    edit = dialog(page, "thing_save")
    assert edit.locator("#id_name").input_value() == "Cable clip"
    edit.locator("#id_name").press("Escape")
    assert result_of(app, "thing_edit") == {"status": "cancelled"}

    # payment: the orders checkout in the modal (address, then confirm and pay), in this app's name.
    press(page, app, "#buy")
    checkout = dialog(page, "payment")
    for field, value in (("name", "Ada Lovelace"), ("street", "12 St James's Square"), ("city", "London"),
                         ("postal_code", "SW1Y 4JH"), ("country", "GB")):
        checkout.locator(f"#id_{field}").fill(value)
    checkout.get_by_role("button", name="Continue").click()
    checkout.get_by_role("button", name="Pay 12.50 USD").click()
    paid = result_of(app, "payment")
    order = Order.objects.get(pk=paid["order_id"])
    assert paid == {"status": "ok", "order_id": order.pk}
    assert (order.buyer, order.application, order.thing) == (ada, world["app"], thing)

    press(page, app, "#api-me")
    assert result_of(app, "api_me") == {"name": "ada", "id": ada.pk}

    # Unknown commands get an error result, never silence.
    press(page, app, "#unknown")
    assert result_of(app, "unknown") == {
        "status": "error",
        "error": 'Unknown command "make_coffee".',
        "type": "UNKNOWN_COMMAND",
    }


class _OtherOrigin:
    """A page on a third origin the test navigates the app's iframe to."""

    def __init__(self):
        handler = type(
            "Handler", (BaseHTTPRequestHandler,), {"do_GET": _other_page, "log_message": lambda *a: None}
        )
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _other_page(self):
    body = (
        b"<!doctype html><title>other</title><script>window.got=[];"
        b"addEventListener('message', function (e) { window.got.push(e.data); });</script>"
    )
    self.send_response(200)
    self.send_header("Content-Type", "text/html")
    self.send_header("Content-Length", str(len(body)))
    self.end_headers()
    self.wfile.write(body)


def forge(frame, target_origin, cmd, token, callback):
    frame.evaluate(
        "([origin, cmd, token, callback]) => window.parent.postMessage("
        "JSON.stringify({cmd: cmd, params: {access_token: token, callback: callback}}), origin)",
        [target_origin, cmd, token, callback],
    )


def test_messages_from_another_origin_or_with_another_apps_token_are_ignored(signed_in, world, live_server):
    ada, thing, origin = world["ada"], world["thing"], world["origin"]
    oauth_services.authorization_grant(application=world["app"], user=ada)
    other_app = register_app("https://other.example", name="Other app")
    other_apps_token = AccessTokenFactory(user=ada, application=other_app).token
    someone_elses_token = AccessTokenFactory(user=world["bob"], application=world["app"]).token
    own_web_flow_token = AccessTokenFactory(user=ada, application=world["app"]).token

    page = signed_in(ada)
    page.goto(f"{live_server.url}/thing:{thing.pk}?app={world['app'].client_id}")  # authorized: opens at once
    app = app_frame(page, origin)
    token = app.evaluate("() => TV.opts.access_token")
    app.evaluate(
        "() => { window.replies = []; addEventListener('message', e => window.replies.push(e.data)); }"
    )

    for callback, forged_token in (
        ("other-app", other_apps_token),
        ("other-user", someone_elses_token),
        ("no-token", ""),
        ("made-up", "0" * 32),
    ):
        forge(app, live_server.url, "thing_select", forged_token, callback)
    # A token of this app for this user that the host did not issue is checked with the server: accepted.
    forge(app, live_server.url, "echo", own_web_flow_token, "web-flow")
    forge(app, live_server.url, "echo", token, "real")
    app.wait_for_function("() => window.replies.length >= 2")
    page.wait_for_timeout(800)  # time for any forged message to be (wrongly) answered
    replies = [json.loads(reply)["callback"] for reply in app.evaluate("() => window.replies")]
    assert sorted(replies) == ["real", "web-flow"]
    assert not page.locator("dialog.thing-app-dialog").is_visible()

    # The host page itself (another window, the site's origin) cannot drive the host either.
    page.evaluate(
        "([token]) => window.postMessage(JSON.stringify({cmd: 'thing_select', "
        "params: {access_token: token, callback: 'self'}}), '*')",
        [token],
    )

    # The app's iframe navigated to another origin: even with the real token, nothing is answered.
    other = _OtherOrigin()
    try:
        app.goto(other.origin + "/")
        frame = next(f for f in page.frames if f.url.startswith(other.origin))
        forge(frame, live_server.url, "thing_select", token, "other-origin")
        forge(frame, live_server.url, "echo", token, "other-origin-echo")
        page.wait_for_timeout(800)
        assert frame.evaluate("() => window.got") == []
        assert not page.locator("dialog.thing-app-dialog").is_visible()
    finally:
        other.close()


def send_without_token(frame, target_origin, cmd, callback):
    """What older SDK builds send: `access_code` undefined (dropped by JSON.stringify), no `access_token`."""
    frame.evaluate(
        "([origin, cmd, callback]) => window.parent.postMessage("
        "JSON.stringify({cmd: cmd, params: {access_code: undefined, n: 7, callback: callback}}), origin)",
        [target_origin, cmd, callback],
    )


def test_a_token_less_message_is_answered_from_the_app_iframe_only(signed_in, world, example_app, live_server):
    """docs/decisions.md (Iframe SDK host, compat): no token at all is answered when the message comes from
    the mounted app's exact window at its exact registered origin, and from nowhere else."""
    ada, thing, origin = world["ada"], world["thing"], world["origin"]
    oauth_services.authorization_grant(application=world["app"], user=ada)
    page = signed_in(ada)
    page.goto(f"{live_server.url}/thing:{thing.pk}?app={world['app'].client_id}")
    app = app_frame(page, origin)
    app.evaluate(
        "() => { window.replies = []; addEventListener('message', e => window.replies.push(e.data)); }"
    )

    # From the mounted iframe at its origin: answered like a message carrying the app's token.
    send_without_token(app, live_server.url, "echo", "token-less")
    app.wait_for_function("() => window.replies.length >= 1")
    [reply] = [json.loads(r) for r in app.evaluate("() => window.replies")]
    assert reply == {"callback": "token-less", "result": {"n": 7}}
    # A dialog too: the host opens it for the token-less message.
    send_without_token(app, live_server.url, "thing_select", "token-less-dialog")
    page.wait_for_selector("dialog.thing-app-dialog[open][data-dialog=thing_select]")
    page.locator(".thing-app-dialog-close").click()
    app.wait_for_function("() => window.replies.length >= 2")
    assert json.loads(app.evaluate("() => window.replies[1]")) == {
        "callback": "token-less-dialog", "result": {"status": "cancelled"},
    }

    # Another window of the app's very origin (a second iframe the host did not mount): ignored.
    page.evaluate(
        "([src]) => { const f = document.createElement('iframe'); f.id = 'intruder'; f.src = src;"
        " document.body.appendChild(f); }",
        [origin + "/?intruder"],
    )
    intruder = None
    for _ in range(100):
        intruder = next((f for f in page.frames if f.url.endswith("/?intruder")), None)
        if intruder is not None:
            break
        page.wait_for_timeout(50)
    assert intruder is not None, "the intruder frame never loaded"
    intruder.wait_for_load_state()
    intruder.evaluate("() => { window.got = []; addEventListener('message', e => window.got.push(e.data)); }")
    send_without_token(intruder, live_server.url, "echo", "other-window")
    # The host page itself (the site's origin): ignored.
    page.evaluate(
        "() => window.postMessage(JSON.stringify({cmd: 'echo', params: {callback: 'host-page'}}), '*')"
    )
    # The mounted iframe navigated to another origin: ignored.
    other = _OtherOrigin()
    try:
        app.goto(other.origin + "/")
        navigated = next(f for f in page.frames if f.url.startswith(other.origin))
        send_without_token(navigated, live_server.url, "echo", "other-origin")
        page.wait_for_timeout(800)  # time for any of them to be (wrongly) answered
        assert navigated.evaluate("() => window.got") == []
        assert intruder.evaluate("() => window.got") == []
        assert not page.locator("dialog.thing-app-dialog").is_visible()
    finally:
        other.close()
