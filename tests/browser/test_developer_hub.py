"""The developer hub walked as a new developer would, in headless Chromium (issue 16):

1. a developer registers an app in the portal, opens the API reference (Swagger UI at /docs/), presses
   Authorize, runs the authorization-code flow with PKCE against that app in the popup (consent, Allow),
   and a "Try it out" call of GET /users/me succeeds with the token Swagger received;
2. the hub's pages never grow wider than the window, at 1280 and at 390 px, however long a code line is.

`make screenshots` runs these with THINGYARD_SCREENSHOTS=1 and refreshes docs/img/developers-*.png.
"""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from apps.accounts.tests.factories import UserFactory
from apps.developers.docs import PAGES
from apps.oauth.models import AppAuthorization, Application

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def register_app(page, live_url: str, *, name: str, callback: str) -> Application:
    """Registers a public Desktop app (PKCE, no secret) through the portal's form."""
    page.goto(f"{live_url}/developers/apps/new")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Description").fill("Tries the API from Swagger UI.")
    page.get_by_label("Application type").select_option("desktop")
    page.get_by_label("Information URL").fill("https://example.com/about")
    page.get_by_label(re.compile("^Callback URL")).first.fill(callback)
    page.get_by_role("radio", name=re.compile("Public")).check()
    page.get_by_role("button", name="Register").click()
    page.wait_for_url(re.compile(r"/developers/apps/\d+/"))
    return Application.objects.get(name=name)


def test_a_developer_authorizes_swagger_ui_with_pkce_against_their_app_and_tries_users_me(
    signed_in, live_server, screenshot
):
    ada = UserFactory(username="ada_dev")
    page = signed_in(ada, viewport=DESKTOP)
    redirect = f"{live_server.url}/docs/oauth2-redirect.html"

    # The hub says where to start and links the API reference.
    page.goto(f"{live_server.url}/developers/")
    assert page.get_by_role("heading", level=1).inner_text()
    page.get_by_role("link", name=re.compile("Try it in Swagger UI")).first.wait_for()

    app = register_app(page, live_server.url, name="Swagger tryout", callback=redirect)
    assert app.client_type == Application.CLIENT_PUBLIC

    page.goto(f"{live_server.url}/docs/")
    page.locator(".auth-wrapper .authorize").click()
    dialog = page.locator(".modal-ux")
    dialog.wait_for()
    oauth_form = dialog.locator(".auth-container").filter(has_text="authorizationCode")
    oauth_form.locator("#client_id_authorizationCode").fill(app.client_id)
    screenshot(page, "developers-swagger-authorize")
    with page.expect_popup() as popup_info:
        oauth_form.get_by_role("button", name="Apply given OAuth2 credentials").click()
    popup = popup_info.value
    popup.wait_for_load_state()
    # The consent page of the app just registered, opened by Swagger with a PKCE challenge.
    assert "code_challenge=" in popup.url and "code_challenge_method=S256" in popup.url
    assert f"redirect_uri={redirect.replace(':', '%3A').replace('/', '%2F')}" in popup.url
    assert "Swagger tryout" in popup.content()
    popup.get_by_role("button", name="Allow").click()
    # The popup closes itself once back on oauth2-redirect.html, and that can be over before the click
    # returns: waiting for a "close" event then would wait for one that already came.
    if not popup.is_closed():
        try:
            popup.wait_for_event("close")
        except PlaywrightTimeoutError:
            raise AssertionError(f"the popup stayed open on {popup.url}:\n{popup.content()[:2000]}") from None

    # Swagger exchanged the code (with the verifier) for a token: the dialog offers to log out.
    oauth_form.get_by_role("button", name="Remove authorization").wait_for()
    assert AppAuthorization.objects.filter(application=app, user=ada).exists()
    dialog.locator(".close-modal").click()

    page.locator(".operation-filter-input").fill("users")  # only the operations in view are drawn
    operation = page.locator("#operations-users-users_retrieve")
    operation.locator(".opblock-summary").first.click()
    operation.get_by_role("button", name="Try it out").click()
    operation.locator("input[placeholder='username']").fill("me")
    operation.get_by_role("button", name="Execute").click()
    status = operation.locator(".live-responses-table .response .response-col_status").first
    status.wait_for()
    assert status.inner_text().strip() == "200"
    body = operation.locator(".live-responses-table .response-col_description pre").first.inner_text()
    assert '"name": "ada_dev"' in body
    curl = operation.locator(".curl-command").inner_text()
    assert "Authorization: Bearer " in curl


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_no_page_of_the_hub_is_wider_than_the_window(visitor, live_server, screenshot, viewport):
    page = visitor(viewport=viewport)
    paths = ["/developers/", "/developers/docs/", *[f"/developers/docs/{name}" for name in PAGES]]
    too_wide = {}
    for path in paths:
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == 200, path
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > viewport["width"]:
            too_wide[path] = width
    assert too_wide == {}
    # A long line of code scrolls inside its own box.
    page.goto(f"{live_server.url}/developers/docs/getting-started")
    scrollers = page.evaluate(
        """() => [...document.querySelectorAll('.docs pre')]
              .filter(pre => pre.scrollWidth > pre.clientWidth)
              .map(pre => getComputedStyle(pre).overflowX)"""
    )
    assert scrollers and set(scrollers) == {"auto"}
    if viewport is DESKTOP:
        page.goto(f"{live_server.url}/developers/")
        screenshot(page, "developers-hub", full_page=True)
    else:
        page.goto(f"{live_server.url}/developers/docs/getting-started")
        screenshot(page, "developers-docs-phone")
