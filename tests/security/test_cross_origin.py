"""The browser boundary: CORS answers only registered application origins, never with credentials, never on
the OAuth and site pages; JSON-P is never authenticated by a session cookie (spec §1, docs/decisions.md)."""
import pytest
from django.test import Client
from rest_framework.test import APIClient

REGISTERED = "https://app.example.com"  # app X's application URL (ApplicationFactory)


@pytest.fixture
def api(a_via_x):
    return a_via_x


# --- CORS ---------------------------------------------------------------------------------------------

def test_a_registered_origin_is_echoed_without_credentials(api, world):
    response = api.get("/users/me", HTTP_ORIGIN=REGISTERED)
    assert response["Access-Control-Allow-Origin"] == REGISTERED
    assert "Access-Control-Allow-Credentials" not in response
    assert "origin" in response.get("Vary", "").lower()  # shared caches keep one answer per origin


def test_an_app_s_callback_origin_counts_as_registered(api, app_y):
    response = api.get("/users/me", HTTP_ORIGIN="https://y.example.org")
    assert response["Access-Control-Allow-Origin"] == "https://y.example.org"


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example",
        "https://app.example.com.evil.example",
        "https://evilapp.example.com",
        "https://sub.app.example.com",
        "http://app.example.com",
        "https://app.example.com:8443",
        "https://app.example.com/callback",
        "null",
        "",
    ],
)
def test_any_other_origin_gets_no_cors_headers(api, world, origin):
    for response in (
        api.get("/users/me", HTTP_ORIGIN=origin),
        api.options("/users/me", HTTP_ORIGIN=origin, HTTP_ACCESS_CONTROL_REQUEST_METHOD="PATCH",
                    HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization"),
    ):
        assert "Access-Control-Allow-Origin" not in response, origin
        assert "Access-Control-Allow-Credentials" not in response


def test_a_preflight_from_a_registered_origin_allows_the_spec_s_verbs_and_the_token_header(app_x):
    response = APIClient().options(
        "/things/1/", HTTP_ORIGIN=REGISTERED, HTTP_ACCESS_CONTROL_REQUEST_METHOD="PATCH",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    assert response["Access-Control-Allow-Origin"] == REGISTERED
    allowed = set(response["Access-Control-Allow-Methods"].replace(" ", "").split(","))
    assert {"GET", "POST", "PATCH", "DELETE"} <= allowed
    assert "authorization" in response["Access-Control-Allow-Headers"].lower()
    assert "Access-Control-Allow-Credentials" not in response


@pytest.mark.parametrize(
    "path",
    ["/login/oauth/access_token", "/login/oauth/tokeninfo", "/login/oauth/authorize", "/login/",
     "/developers/apps/", "/account/", "/admin/"],
)
def test_the_oauth_endpoints_and_site_pages_never_send_cors_headers(app_x, user_a, path):
    client = Client()
    client.force_login(user_a)
    for response in (client.get(path, HTTP_ORIGIN=REGISTERED), client.post(path, HTTP_ORIGIN=REGISTERED),
                     client.options(path, HTTP_ORIGIN=REGISTERED, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")):
        assert "Access-Control-Allow-Origin" not in response, path


# --- JSON-P -------------------------------------------------------------------------------------------

def test_json_p_with_a_session_cookie_alone_reveals_nothing(browser_b, user_b, world):
    for path in ("/users/me", f"/users/{user_b.username}/", f"/things/{world.thing.pk}/", "/orders/"):
        response = browser_b.get(path, {"callback": "steal"})
        assert response.status_code == 401, path
        body = response.content.decode()
        assert user_b.username not in body and user_b.email not in body
        assert "Unauthorized" in body


def test_json_p_with_a_session_cookie_and_a_logged_in_admin_reveals_nothing(world, admin_user):
    browser = Client()
    browser.force_login(admin_user)
    response = browser.get("/users/me", {"callback": "steal"})
    assert response.status_code == 401
    assert admin_user.username not in response.content.decode()


def test_json_p_answers_a_token_holder_as_non_sniffable_javascript(api, user_a):
    response = api.get("/users/me", {"callback": "cb.done"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response.content.startswith(b"/**/cb.done(")


@pytest.mark.parametrize(
    "callback", ["alert(1)//", "a b", "x" * 65, "<script>", "cb;evil", "cb\u2028", "a-b"]
)
def test_a_callback_that_is_not_a_plain_name_is_refused(api, callback):
    response = api.get("/users/me", {"callback": callback})
    assert response.status_code == 400
    assert response.json()["type"] == "INVALID_CALLBACK"


def test_json_p_never_wraps_a_write(api):
    response = api.patch("/users/me?callback=cb", {"bio": "x"}, format="json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
