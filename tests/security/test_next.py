"""A `next` that is not a path on this site (issue 22, finding 6): every page that reads it answers a
clean redirect to its own default, never a 500, never elsewhere, and the write it came with is done once.

Before the fix, `next=foo` passed Django's url_has_allowed_host_and_scheme (a relative reference) and
django.shortcuts.redirect() then tried to reverse "foo": a 500 after the write was done.
"""
from urllib.parse import urlsplit

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.things.models import Watch
from apps.things.tests.factories import ThingFactory

NOT_A_SITE_PATH = [
    "foo",
    "foo/bar",
    "thing:1",
    "./account",
    "../admin/",
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example/",
    "javascript:alert(1)",
    "/account/\r\nSet-Cookie: sessionid=x",
    "/account/\x1b[31m",
    " /account/",
]


def _site_path(location: str) -> str:
    """The path (and query) of a redirect that stays on this site; the whole value if it leaves."""
    parts = urlsplit(location)
    if parts.scheme in ("", "http") and parts.netloc in ("", "testserver") and location.isprintable():
        return parts.path + (f"?{parts.query}" if parts.query else "")
    return location


@pytest.fixture
def browser(user_a):
    client = Client(raise_request_exception=False)
    client.force_login(user_a)
    return client


@pytest.mark.parametrize("target", NOT_A_SITE_PATH)
def test_watching_with_a_bad_next_goes_back_to_the_thing(browser, user_a, user_b, target):
    thing = ThingFactory(creator=user_b)
    response = browser.post(f"/thing:{thing.pk}/watch", {"next": target})
    assert response.status_code == 302, response.content[:300]
    assert _site_path(response["Location"]) == f"/thing:{thing.pk}"
    assert Watch.objects.filter(user=user_a, thing=thing).count() == 1


@pytest.mark.parametrize("target", NOT_A_SITE_PATH)
def test_a_signed_in_visit_to_signup_with_a_bad_next_goes_to_the_account(browser, target):
    response = browser.get("/signup/", {"next": target})
    assert response.status_code == 302
    assert _site_path(response["Location"]) == "/account/"


@pytest.mark.parametrize("target", NOT_A_SITE_PATH)
def test_signing_up_with_a_bad_next_creates_the_account_and_goes_to_it(target, db):
    client = Client(raise_request_exception=False)
    name = f"newbie{abs(hash(target)) % 10**6}"
    response = client.post(
        "/signup/",
        {"username": name, "email": f"{name}@example.com", "password1": "A-long-pass-42", "password2": "A-long-pass-42",
         "next": target},
    )
    assert response.status_code == 302, response.content[:300]
    assert _site_path(response["Location"]) == "/account/"
    assert User.objects.filter(username=name).count() == 1
    assert client.get("/account/").status_code == 200  # signed in


@pytest.mark.parametrize("target", NOT_A_SITE_PATH)
def test_log_in_and_log_out_with_a_bad_next_go_to_their_defaults(user_a, target):
    user_a.set_password("a-long-password-1")
    user_a.save()
    client = Client(raise_request_exception=False)
    response = client.post("/login/", {"username": user_a.username, "password": "a-long-password-1", "next": target})
    assert response.status_code == 302
    assert _site_path(response["Location"]) == "/account/"
    response = client.post("/logout/", {"next": target})
    assert response.status_code == 302
    assert _site_path(response["Location"]) == "/login/"


def test_a_path_on_this_site_is_still_followed(browser, user_b):
    thing = ThingFactory(creator=user_b)
    response = browser.post(f"/thing:{thing.pk}/watch", {"next": "/newest/?page=2"})
    assert _site_path(response["Location"]) == "/newest/?page=2"
    assert _site_path(browser.get("/signup/", {"next": "/account/apps"})["Location"]) == "/account/apps"
