"""Browser-side steps of the OAuth web flow, driven through django.test.Client."""
from urllib.parse import parse_qs, urlencode, urlsplit

from apps.oauth.tests.factories import APP_SECRET

AUTHORIZE = "/login/oauth/authorize"
TOKEN = "/login/oauth/access_token"
TOKENINFO = "/login/oauth/tokeninfo"
REVOKE = "/login/oauth/revoke"


def authorize_url(app, **params) -> str:
    return AUTHORIZE + "?" + urlencode({"client_id": app.client_id, **params})


def consent(client, app, *, allow: bool = True, **params):
    """GET the consent page as the logged-in user, then submit Allow (or Deny). Returns the POST response."""
    url = authorize_url(app, **params)
    page = client.get(url)
    assert page.status_code == 200, page.content
    data = {k: v for k, v in page.context["form"].initial.items() if v is not None}
    if allow:
        data["allow"] = "Authorize"
    return client.post(url, data)


def redirect_params(response) -> dict:
    """The query (or, for the implicit grant, fragment) parameters of a redirect to the callback."""
    assert response.status_code == 302, response.content
    parts = urlsplit(response["Location"])
    raw = parts.fragment or parts.query
    return {k: v[0] for k, v in parse_qs(raw).items()}


def get_code(client, app, **params) -> str:
    return redirect_params(consent(client, app, **params))["code"]


def token_params(app, code, **extra) -> dict:
    return {"client_id": app.client_id, "client_secret": APP_SECRET, "code": code, **extra}


def exchange_form(client, params, **headers):
    return client.post(TOKEN, urlencode(params), content_type="application/x-www-form-urlencoded", **headers)


def parse_form(response) -> dict:
    return {k: v[0] for k, v in parse_qs(response.content.decode()).items()}
