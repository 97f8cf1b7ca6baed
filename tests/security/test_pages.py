"""Site, portal, account, consent and admin pages require a login and refuse cross-site POSTs (CSRF).

Every non-API route of the URLconf is walked, so a new page is covered the day it is added: it must
require a login unless it is listed in PUBLIC_PAGES, and it must refuse a POST without a CSRF token
unless it is listed in CSRF_EXEMPT (with the reason).
"""
import re

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.views import APIView

from apps.accounts.tests.factories import UserFactory

# Pages anyone may GET (route as written in the URLconf).
PUBLIC_PAGES = {
    "",  # the site index
    "healthz",
    "readyz",
    "@<str:username>",  # a public profile
    "thing:<int:thing_id>",  # a published Thing's page (404 to whoever may not see it)
    "thing:<int:thing_id>/files/<int:file_id>/download",  # its files, like the page
    "make:<int:make_id>",
    # The site's browsing pages (issue 15): what they list is what the API lists to anyone.
    "find",
    "browse/categories",
    "browse/categories/<str:slug>",
    "browse/tags/<str:tag>",
    "browse/newest",
    "browse/popular",
    "browse/featured",
    "browse/groups",
    "groups/<group_slug:slug>",
    "groups/<group_slug:slug>/topics/<int:topic_id>",
    "collection:<int:collection_id>",  # a collection's page, its API `absolute_url` (collections are public)
    "@<str:username>/<slug:tab>",
    "thing:<int:thing_id>/files/status",  # the Thing page's live file list, as the page shows it
    "thing:<int:thing_id>/package",  # "download all": the files the page offers one by one
    "signup/",
    "^login/?$",
    "^logout/?$",
    "developers/",  # the developer hub (issue 16)
    "developers/docs/",
    "developers/docs/<slug:page>",
    "developers/docs/img/<slug:name>.png",
    "account/verify/<str:token>",  # the e-mailed link: the signed token is the credential
    # Accounts people can keep (issue 26): the reset request (its answer says nothing of the account)
    # and the e-mailed links, whose signed tokens are the credential; the search box's suggestions.
    "password_reset/",
    "password_reset/done/",
    "reset/<uidb64>/<token>/",
    "reset/done/",
    "account/email/confirm/<str:token>",
    "find/suggest",
    # A file's bytes by a signed link, for clients that send no session (issue 25 direct_url, issue 27
    # "open in slicer"): the token is the credential; a bad one is 404.
    "files/<int:file_id>/direct/<str:token>/<str:name>",
    "files/<int:file_id>/open/<str:token>/<str:name>",
    # The thingiverse wire's upload relay: the signed POST policy is the credential, as at the store.
    "uploads/<int:upload_id>/store",
    # The demo app's OAuth callback (quick start): the code in its query is the credential.
    "demo/callback",
    "^\\.well-known/oauth-authorization-server/?$",  # RFC 8414 metadata
    # OAuth client endpoints: the client authenticates with its credentials or the token itself.
    "^login/oauth/access_token/?$",
    "^login/oauth/tokeninfo/?$",
    "^login/oauth/revoke/?$",
    "^login/oauth/device_authorization/?$",  # RFC 8628 §3.1: a device asks with its client id
}
# Routes that take POSTs without a CSRF token, because no browser session is involved.
CSRF_EXEMPT = {
    # RFC 6749 §3.2 / RFC 7009 / spec §5 step 3B: called by app backends with client credentials or the
    # token; they never read the session cookie.
    "^login/oauth/access_token/?$",
    "^login/oauth/tokeninfo/?$",
    "^login/oauth/revoke/?$",
    # RFC 8628 §3.1: devices (slicers, printers, scripts) ask for a device code with their client id.
    "^login/oauth/device_authorization/?$",
    # The store's stand-in for the thingiverse wire (issue 25): a client posts the signed form there as it
    # would to the object store, with no browser session.
    "uploads/<int:upload_id>/store",
}


def page_routes(patterns=None, prefix=""):
    """Every non-API, non-admin route of the URLconf."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            if not route.startswith("admin/"):
                yield from page_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            view_class = getattr(pattern.callback, "cls", None)
            if isinstance(view_class, type) and issubclass(view_class, APIView):
                continue
            if route in ("openapi.json", "docs/", "docs/oauth2-redirect.html", "docs/oauth2-redirect.js"):
                continue  # the API's public documentation (Swagger UI and its OAuth callback page)
            yield route


def concrete(route: str, values: dict) -> str:
    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: str(values[m[1]]), route)
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m[1]]), path)
    return "/" + path.replace("^", "").replace("$", "").replace("/?", "").replace("\\.", ".")


@pytest.fixture
def values(world, app_x):
    return {
        **world.path_values(),
        "pk": app_x.pk, "application_id": app_x.pk, "delivery_pk": 1, "message_id": 1,
        "order_id": world.order.pk, "make_id": world.make.pk, "token": "not-a-token", "page": "webhooks",
        "name": "dialog", "tab": "makes", "uidb64": "MQ", "kind": "thing", "target_id": world.make.thing_id,
        "field": "avatar", "notification_id": 1,
    }


def _to_login(response) -> bool:
    return response.status_code == 302 and response["Location"].startswith(("/login/", "/admin/login/"))


def _refuses_anonymous(response) -> bool:
    # A page redirects to the login; an endpoint its own pages fetch() (the SDK host) answers 401.
    return _to_login(response) or response.status_code == 401


def test_every_page_but_the_public_ones_sends_an_anonymous_visitor_to_log_in(values):
    routes = list(page_routes())
    assert len(routes) > 20
    anonymous = Client()
    problems = []
    for route in routes:
        if route in PUBLIC_PAGES:
            continue
        path = concrete(route, values)
        get = anonymous.get(path)
        post = anonymous.post(path)
        # 405: the page does not take that method at all, so there is nothing to reach that way.
        refused = all(_refuses_anonymous(r) or r.status_code == 405 for r in (get, post))
        if not refused or get.status_code == post.status_code == 405:
            problems.append(f"{path}: GET {get.status_code}, POST {post.status_code}")
    assert problems == []


def test_every_page_refuses_a_post_without_a_csrf_token(values, user_a):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user_a)
    problems = []
    for route in page_routes():
        if route in CSRF_EXEMPT:
            continue
        path = concrete(route, values)
        response = browser.post(path, {"name": "x", "allow": "Authorize"})
        if response.status_code != 403:
            problems.append(f"{path}: {response.status_code}")
    assert problems == []


def test_the_listed_exemptions_are_real_routes():
    routes = set(page_routes())
    assert PUBLIC_PAGES <= routes
    assert CSRF_EXEMPT <= routes


def test_the_consent_page_refuses_a_forged_authorization(app_x, user_a):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user_a)
    response = browser.post(
        f"/login/oauth/authorize?client_id={app_x.client_id}",
        {"client_id": app_x.client_id, "redirect_uri": "https://app.example.com/callback",
         "response_type": "code", "scope": "read write", "allow": "Authorize"},
    )
    assert response.status_code == 403
    assert "Location" not in response


# --- the admin ----------------------------------------------------------------------------------------

def _admin_pages():
    return [
        reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for model in admin.site._registry
    ]


def test_admin_pages_require_a_staff_login(user_a):
    pages = ["/admin/", *_admin_pages()]
    signed_in = Client()
    signed_in.force_login(user_a)  # not staff
    problems = [
        page for page in pages
        for client in (Client(), signed_in)
        if not _to_login(client.get(page))
    ]
    assert len(pages) > 5 and problems == []


def test_admin_pages_work_for_staff(db):
    staff = Client()
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert all(staff.get(page).status_code == 200 for page in ["/admin/", *_admin_pages()[:5]])


def test_admin_writes_refuse_a_post_without_a_csrf_token(db):
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))
    for page in ["/admin/login/", "/admin/logout/", *_admin_pages()]:
        response = staff.post(page, {"action": "delete_selected", "_selected_action": ["1"]})
        assert response.status_code == 403, page
