"""Accessibility of every site page, checked by axe-core in headless Chromium (issue 26).

The pages are derived from the URL patterns of the site (config/urls.py): every pattern a browser can
open with GET and that answers with HTML is a page, and it must have an entry in PAGES (the role that
visits it and how to build its address from the test's data). A pattern that is not a page (the REST
API, POST-only actions, JSON fragments, redirects, files) is recognised by its view (DRF views without an
HTML renderer, `require_POST`-style decorators, class views without `get`) or listed in NOT_PAGES with
the reason. A new page pattern without an entry fails test_every_page_pattern_has_a_walk.

axe-core comes from the npm registry (package.json devDependency, node_modules/axe-core/axe.min.js) and
is injected into each page; a page passes with no violation of impact "serious" or "critical", and with
nothing broken on the way: no script error, no error its scripts log, no file of the site's own (script,
stylesheet, image, model) answered with an error.
Django's admin (/admin/) is not one of Thingyard's own templates and is not walked.

One browser, one context per role (a visitor and a signed-in member), no sleeps: each page is checked
once its own content is there (the 3D viewer once it has drawn).
"""

import functools
import os
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.urls import URLResolver, get_resolver
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.views import APIView

from apps.accounts import services as account_services
from apps.accounts.tests.factories import MessageFactory, UserFactory
from apps.comments.tests.factories import CommentFactory
from apps.core.domain.moderation import moderation_hide
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.makes.tests.factories import MakeFactory
from apps.notifications.services import notification_send
from apps.oauth import services as oauth_services
from apps.oauth.tests.factories import ApplicationFactory
from apps.orders.tests.factories import OrderFactory
from apps.search.services import thing_index_search
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category
from apps.uploads.models import ThingFile
from apps.uploads.processing import services as processing
from apps.uploads.tests.file_factories import put

from .test_site_flows import ring_stl

pytestmark = [pytest.mark.browser, pytest.mark.webgl, pytest.mark.django_db(transaction=True)]

AXE = Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
VIEWPORT = {"width": 1100, "height": 820}

# name → (role, address built from the test's data `d`, expected status). Roles: "visitor", "member".
PAGES = {
    "index": ("visitor", lambda d: "/", 200),
    "browse-categories": ("visitor", lambda d: "/browse/categories", 200),
    "browse-category": ("visitor", lambda d: "/browse/categories/office-organization", 200),
    "browse-tag": ("visitor", lambda d: "/browse/tags/cable", 200),
    "browse-newest": ("visitor", lambda d: "/browse/newest", 200),
    "browse-popular": ("visitor", lambda d: "/browse/popular", 200),
    "browse-featured": ("visitor", lambda d: "/browse/featured", 200),
    "thing-page": ("visitor", lambda d: f"/thing:{d['thing'].pk}", 200),
    "thing-edit": ("member", lambda d: f"/thing:{d['thing'].pk}/edit", 200),
    "thing-new": ("member", lambda d: "/new", 200),
    "find": ("visitor", lambda d: "/find?q=cable+rnig", 200),
    "accounts:profile": ("visitor", lambda d: "/@ada", 200),
    "accounts:profile-tab": ("visitor", lambda d: "/@ada/makes", 200),
    "accounts:signup": ("visitor", lambda d: "/signup/", 200),
    "accounts:account": ("member", lambda d: "/account/", 200),
    "accounts:verify-email": ("visitor", lambda d: "/account/verify/not-a-token", 400),
    "accounts:password-reset": ("visitor", lambda d: "/password_reset/", 200),
    "accounts:password-reset-done": ("visitor", lambda d: "/password_reset/done/", 200),
    "accounts:password-reset-confirm": ("visitor", lambda d: d["reset_path"], 200),
    "accounts:password-reset-complete": ("visitor", lambda d: "/reset/done/", 200),
    "accounts:account-password": ("member", lambda d: "/account/password", 200),
    "accounts:account-email": ("member", lambda d: "/account/email", 200),
    "accounts:email-change-confirm": ("member", lambda d: "/account/email/confirm/not-a-token", 400),
    "accounts:account-close": ("member", lambda d: "/account/close", 200),
    "notifications": ("member", lambda d: "/notifications", 200),
    "accounts:messages": ("member", lambda d: "/account/messages", 200),
    "accounts:message-new": ("member", lambda d: "/account/messages/new", 200),
    "accounts:message": ("member", lambda d: f"/account/messages/{d['message'].pk}", 200),
    "oauth:login": ("visitor", lambda d: "/login/", 200),
    "oauth:authorize": (
        "member",
        lambda d: (
            f"/login/oauth/authorize?client_id={d['consent_app'].client_id}&response_type=code"
            "&redirect_uri=https://printfarm.example/callback&state=a11y"
        ),
        200,
    ),
    "oauth:authorized-apps": ("member", lambda d: "/account/apps", 200),
    "oauth:authorized-app-revoke": ("member", lambda d: f"/account/apps/{d['app'].pk}/revoke", 200),
    "oauth:device": ("member", lambda d: "/device", 200),
    "developers:hub": ("visitor", lambda d: "/developers/", 200),
    "developers:docs-index": ("visitor", lambda d: "/developers/docs/", 200),
    "developers:docs": ("visitor", lambda d: f"/developers/docs/{d['doc_slug']}", 200),
    "developers:app-list": ("member", lambda d: "/developers/apps/", 200),
    "developers:app-new": ("member", lambda d: "/developers/apps/new", 200),
    "developers:app-detail": ("member", lambda d: f"/developers/apps/{d['own_app'].pk}/", 200),
    "developers:app-webhook-events": (
        "member",
        lambda d: f"/developers/apps/{d['own_app'].pk}/webhook-events",
        200,
    ),
    "developers:app-delete": ("member", lambda d: f"/developers/apps/{d['own_app'].pk}/delete", 200),
    "api-docs": ("visitor", lambda d: "/docs/", 200),
    "account-orders": ("member", lambda d: "/account/orders", 200),
    "order-checkout": ("member", lambda d: "/orders/checkout", 400),
    "order-checkout-cancel": ("member", lambda d: "/orders/checkout/cancel", 200),
    "collection-page": ("visitor", lambda d: f"/collection:{d['collection'].pk}", 200),
    "collection-page-new": ("member", lambda d: "/account/collections/new", 200),
    "group-list-page": ("visitor", lambda d: "/browse/groups", 200),
    "group-page": ("visitor", lambda d: f"/groups/{d['group'].slug}", 200),
    "group-page-topic": ("visitor", lambda d: f"/groups/{d['group'].slug}/topics/{d['topic'].pk}", 200),
    "make-page": ("visitor", lambda d: f"/make:{d['make'].pk}", 200),
    "reports:report": ("member", lambda d: f"/report/thing/{d['other_thing'].pk}", 200),
    "reports:appeal": ("member", lambda d: f"/appeal/thing/{d['hidden_thing'].pk}", 200),
    "thingapps:dialog-file_select": (
        "member",
        lambda d: f"/thing-apps/dialogs/file_select?thing_id={d['thing'].pk}&extension=stl",
        200,
    ),
    "thingapps:dialog-thing_select": ("member", lambda d: "/thing-apps/dialogs/thing_select", 200),
    "thingapps:dialog-thing_search": ("member", lambda d: "/thing-apps/dialogs/thing_search?q=cable", 200),
    "thingapps:dialog-thing_save": ("member", lambda d: "/thing-apps/dialogs/thing_save", 200),
    "demo-callback": ("visitor", lambda d: "/demo/callback?error=access_denied", 200),
}
# Pages no URL pattern names: the error pages.
EXTRA_PAGES = {
    "404": ("visitor", lambda d: "/thing:987654", 404),
    "hidden thing, to its owner": ("member", lambda d: f"/thing:{d['hidden_thing'].pk}", 200),
    "address verified": ("visitor", lambda d: f"/account/verify/{d['verify_token']}", 200),
    "checkout (address step)": (
        "member",
        lambda d: (
            f"/orders/checkout?thing_id={d['other_thing'].pk}&client_id={d['app'].client_id}&amount=19.99"
        ),
        200,
    ),
}
# GET-able patterns that are not pages, and why.
NOT_PAGES = {
    "healthz": "JSON for the load balancer",
    "readyz": "JSON for the load balancer",
    "api-docs-oauth2": "Swagger UI's own popup page, not a Thingyard template (hands the code back and closes)",
    "": "the script of Swagger UI's popup page",
    "oauth:tokeninfo": "JSON (OAuth token introspection)",
    "oauth:metadata": "JSON (RFC 8414 metadata)",
    "oauth:device-authorization": "the device flow's JSON endpoint (GET answers 405 JSON)",
    "oauth:logout": "POST-only in use (GET answers 405)",
    "find-suggest": "JSON (the search box's suggestions)",
    "file-direct": "a redirect to the object store",
    "file-open": "a redirect to the object store",
    "file-download-page": "a redirect to the file",
    "developers:app-webhook-deliveries": "an HTML fragment the app's page polls (walked inside app-detail)",
    "thing-files-status": "an HTML fragment polled by the edit page (walked inside thing-edit)",
    "thing-package-page": "JSON of the package being built, then the ZIP",
    "thingapps:authorize": "renders oauth/authorize.html, walked as oauth:authorize; needs a Thing app",
    "thingapps:docs-image": "a PNG",
}


def _allowed_methods(callback) -> set[str] | None:
    """The methods a function view's require_http_methods-style decorator allows (None: any)."""
    function = callback
    while function is not None:
        code = getattr(function, "__code__", None)
        if code is not None and "request_method_list" in code.co_freevars:
            cell = function.__closure__[code.co_freevars.index("request_method_list")]
            return {m.upper() for m in cell.cell_contents}
        function = getattr(function, "__wrapped__", None)
    return None


def _is_page_candidate(callback) -> bool:
    view_class = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    if view_class is not None and issubclass(view_class, APIView):
        return any(getattr(r, "format", "") == "html" for r in view_class.renderer_classes)
    if view_class is not None:
        return hasattr(view_class, "get")
    methods = _allowed_methods(callback)
    return methods is None or "GET" in methods


def site_patterns():
    """(full name, route) of every site pattern outside the admin that a browser could open with GET."""

    def walk(patterns, prefix="", namespace=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = namespace + (f"{pattern.namespace}:" if pattern.namespace else "")
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            else:
                yield namespace + (pattern.name or ""), prefix + str(pattern.pattern), pattern.callback

    for name, route, callback in walk(get_resolver().url_patterns):
        if route.startswith("admin/"):
            continue  # Django's admin and its dashboard: not walked here (tests/browser/test_admin_moderation.py)
        if _is_page_candidate(callback):
            yield name, route


def test_every_page_pattern_has_a_walk():
    candidates = dict(site_patterns())
    missing = sorted(name for name in candidates if name not in PAGES and name not in NOT_PAGES)
    assert not missing, f"page patterns with no walk in PAGES (or reason in NOT_PAGES): {missing}"
    stale = sorted(name for name in (*PAGES, *NOT_PAGES) if name not in candidates)
    assert not stale, f"entries for patterns that are no pages (or no longer exist): {stale}"


@functools.cache
def _axe_source() -> str:
    return AXE.read_text()


def axe_violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=_axe_source())
    results = page.evaluate(
        """async (blocking) => {
            // Only the rules that can report a blocking impact: axe gives every violation of a rule
            // the rule's own impact, so a minor or moderate rule (`region`, `heading-order`...) can
            // never fail this check, and skipping it finds the same violations for less of the CPU.
            // Should a rule come without an impact, every enabled rule runs, as axe's default does.
            // The others keep axe's default choice (enabled, not experimental).
            const rules = (window.axe._audit && window.axe._audit.rules) || [];
            const options = {resultTypes: ['violations']};
            if (rules.length && rules.every((r) => r.impact)) {
                options.rules = Object.fromEntries(
                    rules.filter((r) => !blocking.includes(r.impact)).map((r) => [r.id, {enabled: false}]));
            }
            const result = await window.axe.run(document, options);
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => n.target.join(' ') + ' :: ' + n.failureSummary.split('\\n').slice(0, 3).join(' ')),
            }));
        }""",
        list(BLOCKING),
    )
    return [v for v in results if v["impact"] in BLOCKING]


def describe(violations) -> str:
    lines = []
    for v in violations:
        lines.append(f"  [{v['impact']}] {v['id']}: {v['help']}")
        lines += [f"      {node}" for node in v["nodes"][:12]]
    return "\n".join(lines)


@pytest.fixture
def site_data(s3, categories):
    """A member (Ada) with a published Thing whose STL was processed (the 3D viewer), a collection, a
    group with a topic, a make, a message, an order, her own app, an app to authorize, a hidden Thing."""
    ada = UserFactory(username="ada", first_name="Ada", email="ada@example.com")
    other = UserFactory(username="bob")
    thing = ThingFactory(
        creator=ada,
        name="Desk cable ring",
        description="Keeps the cables on your desk **tidy**.",
        category=category("office-organization"),
        tags=["cable", "desk"],
    )
    stl = ring_stl(24, 12)
    file = ThingFile.objects.create(
        thing=thing,
        name="ring.stl",
        key=put(s3, "uploads/ada/ring.stl", stl),
        size=len(stl),
        content_type="model/stl",
    )
    Thing.objects.filter(pk=thing.pk).update(file_count=1)
    processing.file_process(file_id=file.pk)
    other_thing = ThingFactory(creator=other, name="Parametric Shelf Bracket", tags=["shelf"])
    hidden_thing = ThingFactory(creator=ada, name="Cable clip")
    moderator = UserFactory(username="mod", is_staff=True)
    moderation_hide(obj=hidden_thing, reason="Looks copied", by=moderator)
    thing_index_search(thing_ids=[thing.pk, other_thing.pk])
    CommentFactory(thing=thing, user=other, body="Nice ring.")
    collection = CollectionFactory(creator=ada, name="Desk gadgets")
    CollectionThingFactory(collection=collection, thing=thing)
    group = GroupFactory(creator=ada, name="Desk people", slug="desk-people")
    topic = GroupTopicFactory(group=group, name="Cable ideas")
    make = MakeFactory(thing=thing, creator=other, description="Printed in orange.")
    message = MessageFactory(recipient=ada, sender=other)
    notification_send(recipient=ada, actor=other, kind="comment", key=f"comment:{thing.pk}:a11y",
                      subject="other commented on Ring", url=f"/thing:{thing.pk}", body="Nice ring.")
    OrderFactory(buyer=ada, thing=other_thing)
    own_app = ApplicationFactory(name="Ada's printer queue", user=ada)
    app = ApplicationFactory(
        name="Print Farm", user=other, redirect_uris="https://printfarm.example/callback"
    )
    oauth_services.authorization_grant(application=app, user=ada)
    consent_app = ApplicationFactory(
        name="Slicer Sync", user=other, redirect_uris="https://printfarm.example/callback"
    )
    reset_path = (
        f"/reset/{urlsafe_base64_encode(force_bytes(ada.pk))}/{default_token_generator.make_token(ada)}/"
    )
    return {
        "ada": ada,
        "thing": thing,
        "other_thing": other_thing,
        "hidden_thing": hidden_thing,
        "collection": collection,
        "group": group,
        "topic": topic,
        "make": make,
        "message": message,
        "own_app": own_app,
        "app": app,
        "consent_app": consent_app,
        "doc_slug": "getting-started",
        "reset_path": reset_path,
        "verify_token": account_services._verification_token(ada),  # the link of the verification mail
    }


def test_axe_finds_nothing_serious_on_any_site_page(
    chromium, live_server, site_urls, site_data, signed_in, visitor
):
    pages = {"visitor": visitor(viewport=VIEWPORT), "member": signed_in(site_data["ada"], viewport=VIEWPORT)}
    failures = []
    walked = []
    # What else a person would meet on each page: a script that fails, an error the page's scripts log, a
    # file of the page's own (a script, a stylesheet, an image, a model) the server refuses or fails.
    broken: list[str] = []
    for page in pages.values():
        page.on("pageerror", lambda error: broken.append(f"script error: {error}"))
        page.on("console", lambda message: _console_error(message, broken))
        page.on("requestfinished", lambda request: _own_file_refused(request, live_server.url, broken))
        page.on("requestfailed", lambda request: broken.append(f"{request.url}: {request.failure}"))
    only = {n for n in os.environ.get("THINGYARD_A11Y_PAGES", "").split(",") if n}  # while fixing one page
    for name, (role, address, status) in {**PAGES, **EXTRA_PAGES}.items():
        if only and name not in only:
            continue
        page = pages[role]
        url = live_server.url + address(site_data)
        broken.clear()
        response = page.goto(url)
        if (
            response is None
            or response.status != status
            or "text/html" not in response.headers["content-type"]
        ):
            failures.append(
                f"{name}: {url} answered {response and response.status} {response and response.headers}"
            )
            continue
        page.wait_for_load_state("load")
        if name == "thing-page":  # the 3D viewer, once it has drawn
            page.wait_for_selector("[data-stage][data-state=ready] canvas")
        if name == "api-docs":  # Swagger UI renders the document after load; checked with operations open
            page.wait_for_selector(".swagger-ui .opblock")
            violations = axe_violations(page)
            # A few tags' operations (Swagger UI's filter): a long document's list is virtualised, and an
            # operation outside the window is not in the page (docs/decisions.md, 2026-11-29).
            page.locator(".operation-filter-input").fill("collections")
            page.wait_for_selector(".opblock-tag[data-tag=categories]", state="detached")  # the filter applied
            for method in ("get", "post"):
                page.locator(f".opblock-{method} .opblock-summary-control").first.click()
            page.wait_for_function(
                "() => document.querySelectorAll('.opblock.is-open .opblock-body').length === 2"
            )
            violations += axe_violations(page)
        else:
            violations = axe_violations(page)
        walked.append(name)
        if violations:
            failures.append(f"{name} ({address(site_data)}):\n{describe(violations)}")
        # The page's own status, when it is expected to be an error, is logged by the browser too.
        met = [line for line in broken if not (status >= 400 and f"status of {status}" in line)]
        if met:
            failures.append(f"{name} ({address(site_data)}): " + "; ".join(met))
    # The header's names, wide and on a phone (where the words are hidden from sight only).
    member = pages["member"]
    for width in (1100, 390):
        member.set_viewport_size({"width": width, "height": 820})
        member.goto(f"{live_server.url}/")
        assert member.get_by_role("link", name="New Thing", exact=True).count() == 1
        snapshot = member.locator(".site-nav summary").nth(1).aria_snapshot()
        assert re.search(r"\bada\s*: your account", snapshot), snapshot  # the visible text first
        violations = axe_violations(member)
        if violations:
            failures.append(f"index at {width} px, signed in:\n{describe(violations)}")
    assert not failures, "axe's serious or critical violations, or what broke on the page:\n" + "\n".join(failures)
    assert only or len(walked) == len(PAGES) + len(EXTRA_PAGES)


def _console_error(message, broken: list[str]) -> None:
    if message.type == "error":
        broken.append(f"console: {message.text}")


def _own_file_refused(request, origin: str, broken: list[str]) -> None:
    """A request of the page to the site itself (not the document: its status is the walk's to check)
    that was answered with an error."""
    response = request.response()
    if response is not None and response.status >= 400 and request.url.startswith(origin) \
            and request.resource_type != "document":
        broken.append(f"{request.method} {request.url}: {response.status}")


def settled_scroll(page) -> float:
    """window.scrollY once a (smooth) scroll has come to rest: unchanged over five animation frames."""
    return page.evaluate(
        """() => new Promise((resolve) => {
            let last = window.scrollY, still = 0;
            const tick = () => {
                still = window.scrollY === last ? still + 1 : 0;
                last = window.scrollY;
                if (still >= 5) resolve(last); else window.requestAnimationFrame(tick);
            };
            window.requestAnimationFrame(tick);
        })"""
    )


def test_the_3d_viewer_has_a_name_turns_and_zooms_by_keyboard_and_lets_the_wheel_scroll_the_page(
    visitor, live_server, site_data
):
    page = visitor(viewport={"width": 1100, "height": 600})
    page.goto(f"{live_server.url}/thing:{site_data['thing'].pk}")
    page.wait_for_selector("[data-stage][data-state=ready] canvas")
    canvas = page.get_by_role("application", name="3D model viewer: ring.stl")
    assert canvas.get_attribute("aria-roledescription") == "3D viewer"
    hint = page.locator(f"#{canvas.get_attribute('aria-describedby')}")
    assert "arrow keys to turn" in hint.inner_text() and "Ctrl + scroll" in hint.inner_text()

    # Reached with the Tab key, with a visible focus ring.
    page.locator("[data-gallery-item][data-kind=model]").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    for _ in range(5):
        if page.evaluate("() => document.activeElement.tagName") == "CANVAS":
            break
        page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.getAttribute('role')") == "application"
    assert canvas.evaluate("c => c.matches(':focus-visible') && getComputedStyle(c).outlineStyle") == "solid"

    # The arrow keys turn the model (and do not scroll the page); + and - zoom; Home puts it back.
    scroll = page.evaluate("() => window.scrollY")
    before = canvas.screenshot()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.querySelector('[data-stage] canvas').dataset.distance")
    assert page.evaluate("() => window.scrollY") == scroll
    turned = canvas.screenshot()
    assert turned != before
    distance = float(canvas.get_attribute("data-distance"))
    page.keyboard.press("+")
    closer = float(canvas.get_attribute("data-distance"))
    assert closer < distance
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert float(canvas.get_attribute("data-distance")) > closer
    page.keyboard.press("Home")
    assert float(canvas.get_attribute("data-distance")) == pytest.approx(distance, rel=1e-3)

    # A plain wheel over the viewer scrolls the page and leaves the model as it was.
    page.evaluate("() => window.scrollTo(0, 0)")
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    distance = canvas.get_attribute("data-distance")
    page.mouse.wheel(0, 300)
    assert settled_scroll(page) > 0
    assert canvas.get_attribute("data-distance") == distance
    # Ctrl + wheel zooms (what a trackpad's pinch sends) and does not scroll.
    shot = canvas.screenshot()  # (scrolls the whole canvas into view)
    scroll = settled_scroll(page)
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -200)
    page.keyboard.up("Control")
    assert settled_scroll(page) == scroll
    assert float(canvas.get_attribute("data-distance")) < float(distance)
    assert canvas.screenshot() != shot


def test_the_blocking_rules_alone_find_what_every_rule_finds(chromium):
    """axe_violations runs only the rules whose impact is serious or critical; on a page with blocking and
    lesser faults alike, axe's full run reports the same blocking violations, and the lesser ones only."""
    page = chromium.new_page()
    page.set_content(
        """<html><head><title>Faults</title></head><body>
        <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
        <button></button>
        <p style="color:#bbb;background:#fff">Faint text</p>
        <h1>One</h1><h4>Skips a level</h4>
        <input type="text">
        </body></html>"""
    )
    blocking = axe_violations(page)
    full = page.evaluate(
        """async () => (await window.axe.run(document, {resultTypes: ['violations']})).violations
            .map((v) => ({id: v.id, impact: v.impact}))"""
    )
    assert sorted(v["id"] for v in blocking) == sorted(v["id"] for v in full if v["impact"] in BLOCKING)
    assert {"image-alt", "button-name", "color-contrast", "label"} <= {v["id"] for v in blocking}
    assert any(v["impact"] not in BLOCKING for v in full)  # the lesser faults are there, and left out
