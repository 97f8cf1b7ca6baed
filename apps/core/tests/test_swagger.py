"""Swagger UI at /docs/ (issue 16): served from the swagger-ui-dist npm package, with an OAuth2 "Authorize"
that works: the authorization-code flow with PKCE against {auth_url}, back to /docs/oauth2-redirect.html."""

import json
import re

from django.test import Client


def test_the_oauth2_redirect_page_and_its_script_are_served_under_docs():
    page = Client().get("/docs/oauth2-redirect.html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert b'<script src="oauth2-redirect.js"></script>' in page.content
    assert page["Cache-Control"] == "no-store"  # its URL carries the authorization code
    script = Client().get("/docs/oauth2-redirect.js")
    assert script.status_code == 200 and script["Content-Type"].startswith("text/javascript")
    assert b"swaggerUIRedirectOauth2" in script.content
    assert Client().get("/docs/index.html").status_code == 404


def test_swagger_ui_runs_the_code_flow_with_pkce_back_to_the_redirect_page(settings):
    settings.ALLOWED_HOSTS = ["api.example.test", "testserver"]
    response = Client().get("/docs/", HTTP_HOST="api.example.test")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'src="/static/vendor/swagger-ui/swagger-ui-bundle.js"' in html
    found = re.search(r"const swaggerSettings = (\{.*?\});", html, re.S)
    assert found is not None
    settings_js = found.group(1)
    ui_settings = json.loads(settings_js)
    assert ui_settings["oauth2RedirectUrl"] == "http://api.example.test/docs/oauth2-redirect.html"
    found = re.search(r"ui\.initOAuth\((\{.*?\})\);", html, re.S)
    assert found is not None
    oauth = json.loads(found.group(1))
    assert oauth["usePkceWithAuthorizationCodeGrant"] is True
    # The popup (consent, then the redirect page) keeps `window.opener` only under the same policy.
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert Client().get("/login/").get("Cross-Origin-Opener-Policy") == "same-origin"


def test_the_oauth2_scheme_points_at_the_provider_under_auth_url(settings):
    Client().get("/openapi.json")  # an earlier document, under another {auth_url}, changes nothing
    settings.AUTH_BASE_URL = "https://auth.example.test"
    schema = Client().get("/openapi.json").json()
    flow = schema["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == "https://auth.example.test/login/oauth/authorize"
    assert flow["tokenUrl"] == "https://auth.example.test/login/oauth/access_token"
    assert "/docs/" not in schema["paths"]  # the UI itself is not an API operation
