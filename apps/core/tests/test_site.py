"""The site's shared plumbing (issue 15): the front-end libraries served from node_modules, the favicon,
HTML 404 pages for site routes, and one stylesheet on every kind of page."""

import pytest
from django.contrib.staticfiles import finders
from django.test import Client, override_settings

from apps.accounts.tests.factories import UserFactory
from apps.core.site.staticfiles import NodeModulesFinder

pytestmark = pytest.mark.django_db


def test_three_js_is_found_in_node_modules_and_nothing_else_of_it(settings):
    # The package's own minified builds (issue 23: the Thing page's weight).
    found = finders.find("vendor/three/three.module.min.js")
    assert found == str(settings.NODE_MODULES_DIR / "three" / "build" / "three.module.min.js")
    assert "./three.core.min.js" in open(found).read()  # its sibling module, served next to it
    assert finders.find("vendor/three/three.core.min.js") and finders.find(
        "vendor/three/addons/controls/OrbitControls.js"
    )
    # Only the listed files: the rest of the package (and of node_modules) is not published.
    assert finders.find("vendor/three/three.webgpu.js") in (None, [])
    assert finders.find("vendor/three/../../three/package.json") in (None, [])
    listed = {
        path
        for finder in finders.get_finders()
        if isinstance(finder, NodeModulesFinder)
        for path, _ in finder.list([])
    }
    assert listed == {
        "three.module.min.js",
        "three.core.min.js",
        "OrbitControls.js",
        # Swagger UI at /docs/ (issue 16)
        "swagger-ui.css",
        "swagger-ui.css.map",  # swagger-ui.css refers to it: production's manifest storage resolves it
        "swagger-ui-bundle.js",
        "swagger-ui-standalone-preset.js",
        "favicon-32x32.png",
        "oauth2-redirect.html",
        "oauth2-redirect.js",
    }
    assert finders.find("vendor/swagger-ui/index.html") in (None, [])


def test_the_finder_warns_when_npm_ci_has_not_run(tmp_path):
    with override_settings(NODE_MODULES_DIR=tmp_path):
        warnings = NodeModulesFinder().check()
    assert [w.id for w in warnings] == ["thingyard.W001"] and "npm ci" in warnings[0].hint


def test_the_favicon_answers(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and b"".join(response.streaming_content)[:4] == b"\x00\x00\x01\x00"


def test_a_site_page_404_is_html_and_an_api_404_stays_json(client, api):
    page = client.get("/thing:999999")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    assert "We could not find that page" in page.content.decode()
    assert client.get("/no/such/path").json()["type"] == "NOT_FOUND"
    assert api.get("/things/999999/").json()["type"] == "NOT_FOUND"
    assert client.get("/thing:999999", HTTP_ACCEPT="application/json").json()["type"] == "NOT_FOUND"


@pytest.mark.parametrize(
    "path, signed_in",
    [
        ("/", False),
        ("/login/", False),
        ("/signup/", False),
        ("/account/", True),
        ("/developers/apps/", True),
        ("/account/apps", True),
        ("/account/orders", True),
        ("/account/messages", True),
    ],
)
def test_every_page_uses_the_one_stylesheet_and_has_a_skip_link(path, signed_in):
    browser = Client()
    if signed_in:
        browser.force_login(UserFactory())
    html = browser.get(path).content.decode()
    assert html.count('rel="stylesheet"') == 1 and "/static/site/thingyard.css" in html
    assert '<a class="skip-link" href="#main">' in html and 'id="main"' in html


def test_dialog_pages_use_the_stylesheet_without_the_site_header(user):
    from apps.oauth.tests.factories import ApplicationFactory
    from apps.oauth import services as oauth_services
    from apps.things.tests.factories import ThingFactory

    browser = Client()
    browser.force_login(user)
    app = ApplicationFactory()
    oauth_services.authorization_grant(application=app, user=user)
    thing = ThingFactory()
    from urllib.parse import urlencode

    checkout = urlencode(
        {
            "thing_id": thing.pk,
            "client_id": app.client_id,
            "amount": "5.00",
            "charges": '[{"name": "Print", "amount": "5.00"}]',
        }
    )
    for path in (
        f"/orders/checkout?{checkout}",
        "/orders/checkout/cancel",
        f"/thing-apps/dialogs/file_select?thing_id={thing.pk}",
    ):
        response = browser.get(path)
        assert response.status_code == 200, path
        html = response.content.decode()
        assert "/static/site/thingyard.css" in html, path
        assert "site-header" not in html and "Log out" not in html, path


def test_site_pages_never_answer_other_origins_but_the_api_does(client):
    from apps.oauth.tests.factories import ApplicationFactory
    from apps.things.tests.factories import ThingFactory

    ApplicationFactory(application_url="https://app.example.org", redirect_uris="https://app.example.org/cb")
    thing = ThingFactory()
    origin = {"HTTP_ORIGIN": "https://app.example.org"}
    for path in (f"/thing:{thing.pk}", f"/thing:{thing.pk}/files/status", "/find", "/browse/newest", "/new"):
        assert "Access-Control-Allow-Origin" not in client.get(path, **origin), path
    assert client.options("/newest/", HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET", **origin)[
        "Access-Control-Allow-Origin"
    ] == "https://app.example.org"
