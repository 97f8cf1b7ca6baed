"""The developer portal pages: /developers/apps/… (spec §5 registration, §6 webhook URL, docs/decisions.md: OAuth)."""
import hashlib
import re

import pytest
from django.contrib.auth.hashers import check_password
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.accounts.tests.factories import UserFactory
from apps.developers.models import ReviewRequest
from apps.developers.tests.helpers import valid_registration
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import ApplicationFactory

Application = get_application_model()
AccessToken = get_access_token_model()
pytestmark = pytest.mark.django_db


def _found(pattern: str, text: str) -> str:
    """The first group of `pattern` in `text` (which must match)."""
    match = re.search(pattern, text)
    assert match is not None, pattern
    return match.group(1)


def _detail(app):
    return f"/developers/apps/{app.pk}/"


def _edit_data(app, **overrides):
    data = {
        "name": app.name,
        "description": app.description,
        "app_type": app.app_type,
        "info_url": app.info_url,
        "application_url": app.application_url,
        "callback_url": app.redirect_uris,
        "client_type": app.client_type,
        "webhook_url": app.webhook_url,
    }
    data.update(overrides)
    return data


# --- authentication and ownership ----------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/developers/apps/", "/developers/apps/new", "/developers/apps/{pk}/", "/developers/apps/{pk}/delete"],
)
def test_anonymous_visitors_are_sent_to_the_login_page(own_app, path):
    path = path.format(pk=own_app.pk)
    response = Client().get(path)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_anonymous_posts_change_nothing(own_app):
    response = Client().post(f"/developers/apps/{own_app.pk}/secret")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    assert Application.objects.get(pk=own_app.pk).client_secret == own_app.client_secret


@pytest.mark.parametrize("suffix", ["", "delete"])
def test_another_users_app_page_is_not_found(stranger_client, own_app, suffix):
    assert stranger_client.get(_detail(own_app) + suffix).status_code == 404


@pytest.mark.parametrize("suffix", ["", "secret", "webhook-secret", "readonly-token", "submit", "delete"])
def test_another_user_cannot_change_the_app(stranger_client, own_app, suffix):
    before = Application.objects.get(pk=own_app.pk)

    response = stranger_client.post(
        _detail(own_app) + suffix, _edit_data(own_app, name="Hijacked") | {"confirm": "yes"}
    )

    assert response.status_code == 404
    after = Application.objects.get(pk=own_app.pk)
    assert (after.name, after.client_secret, after.webhook_secret) == (
        before.name,
        before.client_secret,
        before.webhook_secret,
    )
    assert not AccessToken.objects.filter(application=own_app).exists()
    assert not ReviewRequest.objects.exists()


def test_a_missing_app_is_not_found(owner_client):
    assert owner_client.get("/developers/apps/999999/").status_code == 404


def test_forms_are_csrf_protected(owner, own_app):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)

    assert client.post("/developers/apps/new", valid_registration()).status_code == 403
    assert client.post(_detail(own_app) + "secret").status_code == 403


# --- list ----------------------------------------------------------------------------------------


def test_the_list_shows_own_apps_with_type_state_and_user_count(owner_client, own_app, other_user):
    AppAuthorization.objects.create(application=own_app, user=other_user)
    foreign = ApplicationFactory(name="Someone Else's App")

    response = owner_client.get("/developers/apps/")

    assert response.status_code == 200
    body = response.content.decode()
    assert own_app.name in body
    assert "Web" in body and "Pending review" in body and "1 of 10" in body
    assert foreign.name not in body


@pytest.mark.parametrize("count", [1, 30])
def test_the_list_takes_the_same_queries_for_1_and_30_apps(
    owner_client, owner, count, django_assert_num_queries
):
    ApplicationFactory.create_batch(count, user=owner)
    # 1 session, 2 user, 3 the apps annotated with their user count
    with django_assert_num_queries(3):
        response = owner_client.get("/developers/apps/")
    assert response.status_code == 200


# --- register ------------------------------------------------------------------------------------


def test_the_registration_form_renders(owner_client):
    response = owner_client.get("/developers/apps/new")

    assert response.status_code == 200
    assert b'name="callback_url"' in response.content
    assert b"csrfmiddlewaretoken" in response.content


def test_registering_a_web_app_creates_a_pending_app_and_shows_its_credentials(owner_client, owner):
    response = owner_client.post("/developers/apps/new", valid_registration())

    application = Application.objects.get(user=owner)
    assert response.status_code == 302
    assert response["Location"] == _detail(application)
    assert application.approval_state == "pending"
    assert application.app_type == "web"
    assert application.info_url == "https://buddy.example.com/about"
    assert application.application_url == "https://buddy.example.com"
    assert application.redirect_uris == "https://buddy.example.com/oauth/callback"
    assert application.client_type == "confidential"

    page = owner_client.get(response["Location"]).content.decode()
    assert application.client_id in page
    assert "0 of 10 users" in page


@pytest.mark.parametrize("app_type", ["web", "thing"])
def test_registering_a_web_or_thing_app_without_application_url_is_refused(owner_client, app_type):
    response = owner_client.post(
        "/developers/apps/new", valid_registration(app_type=app_type, application_url="")
    )

    assert response.status_code == 400
    assert "application_url" in response.context["form"].errors
    assert b"Web and Thing apps must give the application URL." in response.content
    assert not Application.objects.exists()


def test_registering_a_mobile_app_without_application_url_is_accepted(owner_client, owner):
    response = owner_client.post(
        "/developers/apps/new",
        valid_registration(app_type="mobile", application_url="", client_type="public"),
    )

    assert response.status_code == 302
    application = Application.objects.get(user=owner)
    assert (application.app_type, application.application_url, application.client_type) == (
        "mobile",
        "",
        "public",
    )


@pytest.mark.parametrize(
    "field, value",
    [
        ("callback_url", "not a url"),
        ("callback_url", "ftp://buddy.example.com/cb"),
        ("callback_url", ""),
        ("info_url", "javascript:alert(1)"),
        ("application_url", "http://"),
        ("app_type", "toaster"),
        ("name", ""),
    ],
)
def test_registering_with_a_bad_field_is_refused_on_that_field(owner_client, field, value):
    response = owner_client.post("/developers/apps/new", valid_registration(**{field: value}))

    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert not Application.objects.exists()


def test_a_web_app_cannot_be_a_public_client(owner_client):
    response = owner_client.post("/developers/apps/new", valid_registration(client_type="public"))

    assert response.status_code == 400
    assert "client_type" in response.context["form"].errors


def test_the_client_secret_is_shown_once_and_then_never(owner_client, owner):
    response = owner_client.post("/developers/apps/new", valid_registration())
    application = Application.objects.get(user=owner)

    first = owner_client.get(response["Location"]).content.decode()
    secret = _found(r'id="client-secret">([^<]+)<', first)
    assert check_password(secret, application.client_secret)

    second = owner_client.get(response["Location"]).content.decode()
    assert secret not in second
    assert 'id="client-secret"' not in second
    assert secret not in owner_client.get("/developers/apps/").content.decode()


# --- edit ----------------------------------------------------------------------------------------


def test_the_edit_page_shows_the_client_id_but_never_the_secret_hash(owner_client, own_app):
    page = owner_client.get(_detail(own_app)).content.decode()

    assert own_app.client_id in page
    assert own_app.client_secret not in page
    assert "test-client-secret" not in page
    assert own_app.webhook_secret in page
    assert "Pending review" in page


def test_the_owner_can_edit_the_app(owner_client, own_app):
    response = owner_client.post(
        _detail(own_app),
        _edit_data(own_app, name="New name", description="Better", callback_url="https://new.example/cb"),
    )

    assert response.status_code == 302
    own_app.refresh_from_db()
    assert (own_app.name, own_app.description, own_app.redirect_uris) == (
        "New name",
        "Better",
        "https://new.example/cb",
    )


def test_editing_keeps_the_application_url_rule(owner_client, own_app):
    response = owner_client.post(_detail(own_app), _edit_data(own_app, application_url=""))

    assert response.status_code == 400
    assert "application_url" in response.context["form"].errors
    own_app.refresh_from_db()
    assert own_app.application_url == "https://app.example.com"


def test_the_edit_page_counts_users_against_the_limit_while_unapproved(owner_client, own_app):
    for user in UserFactory.create_batch(3):
        AppAuthorization.objects.create(application=own_app, user=user)

    assert "3 of 10 users" in owner_client.get(_detail(own_app)).content.decode()


def test_the_edit_page_shows_the_moderators_reason(owner_client, own_app):
    Application.objects.filter(pk=own_app.pk).update(
        approval_state="rejected", approval_reason="Logo is stolen"
    )

    page = owner_client.get(_detail(own_app)).content.decode()

    assert "Rejected" in page
    assert "Logo is stolen" in page


def test_an_approved_app_shows_no_user_limit(owner_client, owner):
    app = ApplicationFactory(user=owner, approval_state="approved")

    page = owner_client.get(_detail(app)).content.decode()

    assert "of 10 users" not in page


def test_regenerating_the_secret_shows_the_new_one_once_and_the_old_one_stops_working(owner_client, own_app):
    response = owner_client.post(_detail(own_app) + "secret")

    assert response.status_code == 302
    own_app.refresh_from_db()
    assert not check_password("test-client-secret-0123456789", own_app.client_secret)
    page = owner_client.get(_detail(own_app)).content.decode()
    new_secret = _found(r'id="client-secret">([^<]+)<', page)
    assert check_password(new_secret, own_app.client_secret)
    assert new_secret not in owner_client.get(_detail(own_app)).content.decode()


def test_regenerating_the_secret_needs_a_post(owner_client, own_app):
    assert owner_client.get(_detail(own_app) + "secret").status_code == 405


# --- webhook URL and secret ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1/hook", "http://10.0.0.5/hook", "http://localhost/hook", "http://[::1]/hook"]
)
def test_a_webhook_url_on_a_private_address_is_refused(owner_client, own_app, settings, url):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = False

    response = owner_client.post(_detail(own_app), _edit_data(own_app, webhook_url=url))

    assert response.status_code == 400
    assert "webhook_url" in response.context["form"].errors
    own_app.refresh_from_db()
    assert own_app.webhook_url == ""


def test_a_webhook_url_on_a_private_address_is_accepted_when_the_setting_allows(
    owner_client, own_app, settings
):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = True

    data = _edit_data(own_app, webhook_url="http://localhost:9000/hook")
    response = owner_client.post(_detail(own_app), data)

    assert response.status_code == 302
    own_app.refresh_from_db()
    assert own_app.webhook_url == "http://localhost:9000/hook"


def test_a_webhook_url_on_a_public_address_is_accepted(owner_client, own_app, settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = False

    data = _edit_data(own_app, webhook_url="https://93.184.215.14/hook")
    response = owner_client.post(_detail(own_app), data)

    assert response.status_code == 302
    own_app.refresh_from_db()
    assert own_app.webhook_url == "https://93.184.215.14/hook"


def test_rotating_the_webhook_secret_replaces_it(owner_client, own_app):
    old = own_app.webhook_secret

    response = owner_client.post(_detail(own_app) + "webhook-secret")

    assert response.status_code == 302
    own_app.refresh_from_db()
    assert own_app.webhook_secret != old
    assert own_app.webhook_secret.startswith("whsec_")
    page = owner_client.get(_detail(own_app)).content.decode()
    assert own_app.webhook_secret in page and old not in page


# --- read-only token -----------------------------------------------------------------------------


def _readonly_tokens(app):
    return list(AccessToken.objects.filter(application=app, user__isnull=True, scope="orders:read"))


def test_issuing_the_readonly_token_shows_it_once_and_stores_only_its_checksum(owner_client, own_app):
    response = owner_client.post(_detail(own_app) + "readonly-token")

    assert response.status_code == 302
    [token] = _readonly_tokens(own_app)
    assert token.user is None
    assert token.token == ""  # like the client secret: not re-displayable
    first = owner_client.get(_detail(own_app)).content.decode()
    plain = _found(r'id="readonly-token-value">([0-9a-f]{32})<', first)
    assert hashlib.sha256(plain.encode()).hexdigest() == token.token_checksum
    assert plain not in owner_client.get(_detail(own_app)).content.decode()
    # …and it works on the API, as the app's read-only token
    assert bearer_get(plain, "/orders").status_code == 200


def test_regenerating_the_readonly_token_deletes_the_old_one(owner_client, own_app):
    owner_client.post(_detail(own_app) + "readonly-token")
    [old] = _readonly_tokens(own_app)
    old_plain = _found(r'id="readonly-token-value">([0-9a-f]{32})<', owner_client.get(_detail(own_app)).content.decode())

    owner_client.post(_detail(own_app) + "readonly-token")

    [new] = _readonly_tokens(own_app)
    assert new.pk != old.pk and new.token_checksum != old.token_checksum
    assert not AccessToken.objects.filter(pk=old.pk).exists()
    page = owner_client.get(_detail(own_app)).content.decode()
    new_plain = _found(r'id="readonly-token-value">([0-9a-f]{32})<', page)
    assert new_plain != old_plain and old_plain not in page
    assert bearer_get(old_plain, "/orders").status_code == 401


def bearer_get(token: str, path: str):
    return Client().get(path, HTTP_AUTHORIZATION=f"Bearer {token}")


# --- review --------------------------------------------------------------------------------------


def test_requesting_approval_puts_the_app_in_the_review_queue(owner_client, own_app):
    response = owner_client.post(_detail(own_app) + "submit")

    assert response.status_code == 302
    assert ReviewRequest.objects.filter(application=own_app).exists()
    assert "submitted for review" in owner_client.get(_detail(own_app)).content.decode()


def test_requesting_approval_of_an_incomplete_app_explains_why_not(owner_client, owner):
    app = ApplicationFactory(user=owner, approval_state="pending", application_url="")

    response = owner_client.post(_detail(app) + "submit", follow=True)

    assert b"Web and Thing apps must give the application URL." in response.content
    assert not ReviewRequest.objects.exists()


# --- delete --------------------------------------------------------------------------------------


def test_deleting_asks_for_confirmation_first(owner_client, own_app):
    page = owner_client.get(_detail(own_app) + "delete")
    assert page.status_code == 200
    assert b'name="confirm"' in page.content

    response = owner_client.post(_detail(own_app) + "delete")

    assert response.status_code == 400
    assert Application.objects.filter(pk=own_app.pk).exists()


def test_deleting_with_confirmation_removes_the_app(owner_client, own_app):
    response = owner_client.post(_detail(own_app) + "delete", {"confirm": "yes"})

    assert response.status_code == 302
    assert response["Location"] == "/developers/apps/"
    assert not Application.objects.filter(pk=own_app.pk).exists()


@pytest.mark.django_db
def test_the_webhooks_docs_page_shows_the_event_catalogue_and_verification():
    from django.test import Client

    html = Client().get("/developers/docs/webhooks").content.decode()
    for text in ("order_created", "refund_requested", "order_refunded", "webhook-signature"):
        assert text in html
    assert "<pre>" in html or "<code>" in html


@pytest.mark.django_db
def test_the_compatibility_docs_page_lists_the_wire_rules_and_links_the_other_pages():
    from django.test import Client

    html = Client().get("/developers/docs/compatibility").content.decode()
    for text in ("200 OK", "round-trip PATCH", "<code>{\"total\": &lt;all matches&gt;, \"hits\": [...]}</code>",
                 "<code>meta_data</code>", "<code>geometry</code>", "/grouptopics/", "<strong>or no token at\nall</strong>", "WAL"):
        assert text in html, text
    # Links between the Markdown files point at their pages here, anchors included.
    assert 'href="/developers/docs/api"' in html and 'href="/developers/docs/thing-apps"' in html
    api = Client().get("/developers/docs/api").content.decode()
    assert '<h2 id="411-iframe-sdk">' in api or 'id="411-iframe-sdk"' in api


@pytest.mark.django_db
def test_an_unknown_docs_page_is_404():
    from django.test import Client

    assert Client().get("/developers/docs/..%2Fsettings").status_code == 404
    assert Client().get("/developers/docs/nothing").status_code == 404
