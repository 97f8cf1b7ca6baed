"""PageMiddleware (issue 17): an API call with a token and no session cookie skips sessions, CSRF,
session authentication and messages; everything else runs them as before."""
from typing import Any

import pytest
from django.test import Client, RequestFactory

from apps.core.pipeline import middleware
from apps.core.pipeline.middleware import PageMiddleware, page_middleware_skipped

pytestmark = pytest.mark.django_db


class _Probe:
    """The view end of the chain: records what the wrapped middleware left on the request."""

    def __init__(self):
        self.seen: dict[str, bool] = {}

    def __call__(self, request):
        from django.http import HttpResponse

        self.seen = {"session": hasattr(request, "session"), "messages": hasattr(request, "_messages"),
                     "user": request.user.is_authenticated}
        return HttpResponse("ok")


def _request(path="/users/me", *, token=True, cookie=False, api=True):
    # The request carries the middleware's own attribute (thingyard_api_view): typed loosely here.
    request: Any = RequestFactory().get(path, HTTP_AUTHORIZATION="Bearer abc") if token else RequestFactory().get(path)
    if cookie:
        request.COOKIES["sessionid"] = "x"
    request.thingyard_api_view = api
    return request


def test_a_token_api_call_without_a_session_cookie_skips_the_page_middleware():
    probe = _Probe()
    PageMiddleware(probe)(_request())
    assert probe.seen == {"session": False, "messages": False, "user": False}


@pytest.mark.parametrize("kwargs", [{"token": False}, {"cookie": True}, {"api": False}])
def test_anything_else_runs_it(kwargs):
    probe = _Probe()
    PageMiddleware(probe)(_request(**kwargs))
    assert probe.seen["session"] and probe.seen["messages"]
    assert not page_middleware_skipped(_request(**kwargs))


def test_the_api_answers_the_same_with_it_skipped(api, user):
    response = api.get("/users/me")
    assert response.status_code == 200
    assert response.json()["name"] == user.username
    assert "Set-Cookie" not in response.headers and "sessionid" not in response.cookies
    assert "Cookie" not in response.headers.get("Vary", "")


def test_a_site_page_keeps_its_session_and_csrf_check(user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.get("/account/apps").status_code == 200  # the session's user
    assert browser.post("/account/apps/1/revoke").status_code == 403  # no CSRF token
    # The same page with a token as well (a browser's cookie wins: the whole chain runs).
    assert browser.get("/account/apps", HTTP_AUTHORIZATION="Bearer abc").status_code == 200


def test_the_trailing_slash_middleware_marks_api_views(rf):
    marked = []

    def view(request):
        marked.append(request.thingyard_api_view)
        from django.http import HttpResponse

        return HttpResponse()

    handler = middleware.OptionalTrailingSlashMiddleware(view)
    handler(rf.get("/users/me"))
    handler(rf.get("/account/apps"))
    assert marked == [True, False]
