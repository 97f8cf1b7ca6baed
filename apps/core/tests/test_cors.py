"""CORS echoes only a registered application's origin (docs/decisions.md: JSON-P and CORS)."""
import pytest

from apps.core.pipeline.cors import origin_of
from apps.oauth.tests.factories import ApplicationFactory

pytestmark = pytest.mark.urls("apps.core.tests.urls")


@pytest.fixture
def registered(db):
    return ApplicationFactory(
        application_url="https://printer.example.com/app",
        redirect_uris="https://auth.printer.example.com:8443/cb http://localhost:3000/callback",
    )


@pytest.mark.parametrize(
    "origin",
    ["https://printer.example.com", "https://auth.printer.example.com:8443", "http://localhost:3000"],
)
def test_registered_origin_is_echoed(api, registered, origin):
    response = api.get("/echo", HTTP_ORIGIN=origin)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == origin
    assert "Access-Control-Allow-Credentials" not in response
    assert "X-RateLimit-Remaining" in response["Access-Control-Expose-Headers"]


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example.com",
        "https://printer.example.com.evil.test",  # the registered origin as a mere prefix
        "http://printer.example.com",  # other scheme
        "https://auth.printer.example.com",  # other port
        "https://printer.example.com/app",  # not a bare origin
        "null",
    ],
)
def test_other_origins_get_no_cors_headers(api, registered, origin):
    response = api.get("/echo", HTTP_ORIGIN=origin)
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response


def test_preflight_allows_authorization_content_type_and_the_verbs(anon_client, registered):
    response = anon_client.options(
        "/echo",
        HTTP_ORIGIN="https://printer.example.com",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="PATCH",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "https://printer.example.com"
    assert {h.strip() for h in response["Access-Control-Allow-Headers"].split(",")} >= {
        "authorization",
        "content-type",
    }
    assert {m.strip() for m in response["Access-Control-Allow-Methods"].split(",")} >= {
        "GET",
        "POST",
        "PATCH",
        "DELETE",
    }
    assert "Access-Control-Allow-Credentials" not in response


def test_preflight_from_an_unknown_origin_is_not_allowed(anon_client, registered):
    response = anon_client.options(
        "/echo", HTTP_ORIGIN="https://evil.example.com", HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET"
    )
    assert "Access-Control-Allow-Origin" not in response


def test_authorization_endpoints_never_send_cors_headers(api, registered):
    for method in ("get", "options"):
        response = getattr(api, method)(
            "/login/oauth/tokeninfo",
            HTTP_ORIGIN="https://printer.example.com",
            HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        )
        assert "Access-Control-Allow-Origin" not in response, method


def test_origin_lookup_is_cached(api, registered, django_assert_num_queries):
    api.get("/echo", HTTP_ORIGIN="https://printer.example.com")
    # 1. the token only: the origin check comes from the cache
    with django_assert_num_queries(1):
        response = api.get("/echo", HTTP_ORIGIN="https://printer.example.com")
    assert response["Access-Control-Allow-Origin"] == "https://printer.example.com"


@pytest.mark.parametrize(
    "url, origin",
    [
        ("https://Example.com/path?q=1", "https://example.com"),
        ("https://example.com:443/", "https://example.com"),
        ("http://example.com:8080/cb", "http://example.com:8080"),
        ("http://[::1]:3000/cb", "http://[::1]:3000"),
        ("myapp://callback", None),
        ("not a url", None),
        ("https://example.com:99999/", None),
    ],
)
def test_origin_of_a_url(url, origin):
    assert origin_of(url) == origin
