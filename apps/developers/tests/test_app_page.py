"""The app page of the developer portal (issue 16): credentials, several callback URLs, the logo, the
last-used stamp and the webhook delivery log with its filters and live fragment."""
import io
import re
from datetime import UTC, datetime

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_application_model
from PIL import Image as PILImage

from apps.accounts.tests.factories import UserFactory
from tests.support.api import csrf_token
from apps.developers import services
from apps.developers.tests.helpers import valid_registration
from apps.oauth.tests.factories import ApplicationFactory
from apps.webhooks import services as webhook_services
from apps.webhooks.models import Attempt, Delivery

Application = get_application_model()
pytestmark = pytest.mark.django_db


def _detail(app, suffix=""):
    return f"/developers/apps/{app.pk}/{suffix}"


def _log(app, query=""):
    return f"/developers/apps/{app.pk}/webhook-deliveries" + (f"?{query}" if query else "")


def _settings(app, **overrides):
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
    return data | overrides


def _image(fmt="PNG", size=(128, 128), color=(10, 91, 181)) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", size, color).save(out, format=fmt)
    return out.getvalue()


def _upload(data: bytes, name="logo.png", content_type="image/png"):
    return SimpleUploadedFile(name, data, content_type=content_type)


# --- the auth matrix of the new views ------------------------------------------------------------------


@pytest.mark.parametrize("path", ["webhook-deliveries"])
def test_anonymous_visitors_of_the_new_pages_are_sent_to_log_in(own_app, path):
    response = Client().get(_detail(own_app).rstrip("/") + "/" + path)
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=")


def test_anonymous_logo_posts_are_sent_to_log_in_and_change_nothing(own_app):
    response = Client().post(_detail(own_app, "logo"), {"logo": _upload(_image())})
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    own_app.refresh_from_db()
    assert own_app.logo == ""


def test_another_user_gets_404_for_the_log_and_the_logo(stranger_client, own_app):
    assert stranger_client.get(_log(own_app)).status_code == 404
    assert stranger_client.post(_detail(own_app, "logo"), {"logo": _upload(_image())}).status_code == 404
    assert stranger_client.post(_detail(own_app, "logo"), {"remove": "1"}).status_code == 404
    own_app.refresh_from_db()
    assert own_app.logo == ""


def test_the_logo_post_is_csrf_protected(owner, own_app):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(_detail(own_app, "logo"), {"logo": _upload(_image())}).status_code == 403
    response = client.post(
        _detail(own_app, "logo"), {"logo": _upload(_image()), "csrfmiddlewaretoken": csrf_token(client)}
    )
    assert response.status_code == 302


def test_the_log_fragment_is_get_only(owner_client, own_app):
    assert owner_client.post(_log(own_app)).status_code == 405


# --- credentials -------------------------------------------------------------------------------------


def test_credentials_sit_in_copy_boxes(owner_client):
    response = owner_client.post("/developers/apps/new", valid_registration(), follow=True)
    page = response.content.decode()
    for box in ("client-id", "client-secret", "webhook-secret"):
        assert re.search(rf'<code class="copybox-value" id="{box}">[^<]+</code>', page), box
        assert f'data-copy="{box}"' in page
    assert "site/portal.js" in page


def test_the_last_use_of_the_credentials_is_shown(owner_client, own_app):
    Application.objects.filter(pk=own_app.pk).update(last_used_at=datetime(2026, 3, 4, 5, 6, tzinfo=UTC))
    page = owner_client.get(_detail(own_app)).content.decode()
    assert "Last used 2026-03-04 05:06 UTC" in page


def test_an_app_that_never_authenticated_says_so(owner_client, owner):
    app = ApplicationFactory(user=owner, last_used_at=None)
    page = owner_client.get(_detail(app)).content.decode()
    assert "Never used yet" in page and "has not authenticated or used a token yet" in page


# --- several callback URLs ------------------------------------------------------------------------------


def test_several_callback_urls_are_saved_one_per_line(owner_client, own_app):
    urls = "https://a.example/cb\r\n\r\nhttp://localhost:8080/cb\nhttps://a.example/cb\n"
    response = owner_client.post(_detail(own_app), _settings(own_app, callback_url=urls))
    assert response.status_code == 302
    own_app.refresh_from_db()
    assert own_app.redirect_uris == "https://a.example/cb http://localhost:8080/cb"
    assert own_app.redirect_uri_allowed("http://localhost:8080/cb")
    form_html = owner_client.get(_detail(own_app)).content.decode()
    assert "https://a.example/cb\nhttp://localhost:8080/cb</textarea>" in form_html


def test_each_bad_callback_url_is_named(owner_client, own_app):
    urls = "https://ok.example/cb\nftp://files.example/cb\nhttps://frag.example/cb#x"
    response = owner_client.post(_detail(own_app), _settings(own_app, callback_url=urls))
    assert response.status_code == 400
    errors = response.context["form"].errors["callback_url"]
    assert any(e.startswith("ftp://files.example/cb:") and "http" in e for e in errors)
    assert any(e.startswith("https://frag.example/cb#x:") and "fragment" in e for e in errors)
    assert len(errors) == 2
    own_app.refresh_from_db()
    assert "ok.example" not in own_app.redirect_uris


def test_too_many_callback_urls_are_refused(owner_client, own_app):
    urls = "\n".join(f"https://a.example/cb{i}" for i in range(11))
    response = owner_client.post(_detail(own_app), _settings(own_app, callback_url=urls))
    assert response.status_code == 400
    assert response.context["form"].errors["callback_url"] == ["Give at most 10 callback URLs."]


def test_registration_takes_several_callback_urls_too(owner_client, owner):
    data = valid_registration(callback_url="https://buddy.example.com/cb\nhttps://buddy.example.com/cb2")
    assert owner_client.post("/developers/apps/new", data).status_code == 302
    app = Application.objects.get(user=owner)
    assert app.redirect_uris == "https://buddy.example.com/cb https://buddy.example.com/cb2"


# --- the logo -----------------------------------------------------------------------------------------


def test_a_logo_is_stored_and_shown(owner_client, own_app):
    response = owner_client.post(_detail(own_app, "logo"), {"logo": _upload(_image())})
    assert response.status_code == 302 and response["Location"].endswith("#logo")
    own_app.refresh_from_db()
    assert re.fullmatch(rf"app-logos/{own_app.pk}/[0-9a-f]{{32}}\.png", own_app.logo)
    assert default_storage.exists(own_app.logo)
    page = owner_client.get(_detail(own_app)).content.decode()
    assert f"{own_app.logo}" in page and 'class="app-logo"' in page


def test_replacing_the_logo_deletes_the_old_image(owner_client, own_app, django_capture_on_commit_callbacks):
    owner_client.post(_detail(own_app, "logo"), {"logo": _upload(_image())})
    own_app.refresh_from_db()
    first = own_app.logo
    with django_capture_on_commit_callbacks(execute=True):
        owner_client.post(_detail(own_app, "logo"), {"logo": _upload(_image("JPEG"), "l.jpg", "image/jpeg")})
    own_app.refresh_from_db()
    assert own_app.logo.endswith(".jpg") and own_app.logo != first
    assert not default_storage.exists(first)


def test_removing_the_logo(owner_client, own_app, django_capture_on_commit_callbacks):
    owner_client.post(_detail(own_app, "logo"), {"logo": _upload(_image())})
    own_app.refresh_from_db()
    key = own_app.logo
    with django_capture_on_commit_callbacks(execute=True):
        assert owner_client.post(_detail(own_app, "logo"), {"remove": "1"}).status_code == 302
    own_app.refresh_from_db()
    assert own_app.logo == "" and not default_storage.exists(key)


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "logo.svg", "must be a PNG, JPEG or WebP"),
        (b"GIF89a" + b"\0" * 40, "logo.gif", "must be a PNG, JPEG or WebP"),
        (_image()[:60], "cut.png", "must be a PNG, JPEG or WebP"),
        (_image(size=(1500, 200)), "wide.png", "the limit is 1024 × 1024"),
        (_image(size=(8, 8)), "tiny.png", "at least 16 × 16"),
        (b"\x89PNG" + b"\0" * (600 * 1024), "big.png", "the limit is 512 KB"),
    ],
)
def test_a_bad_logo_is_refused_with_a_reason(owner_client, own_app, data, name, message):
    response = owner_client.post(_detail(own_app, "logo"), {"logo": _upload(data, name)})
    assert response.status_code == 400
    assert any(message in error for error in response.context["logo_form"].errors["logo"])
    own_app.refresh_from_db()
    assert own_app.logo == ""


def test_a_logo_post_without_a_file_is_a_form_error(owner_client, own_app):
    response = owner_client.post(_detail(own_app, "logo"), {})
    assert response.status_code == 400
    assert response.context["logo_form"].errors["logo"]


# --- the delivery log ----------------------------------------------------------------------------------


def _delivery(app, event="order_created", status="pending", error=""):
    delivery = webhook_services.webhook_event_record(application=app, event=event, payload={"order": {"id": 1}})
    Delivery.objects.filter(pk=delivery.pk).update(status=status, last_error=error)
    return delivery


@pytest.fixture
def hooked(own_app):
    Application.objects.filter(pk=own_app.pk).update(webhook_url="https://hooks.example/h")
    own_app.refresh_from_db()
    return own_app


def test_the_log_fragment_shows_plain_errors_and_attempt_details(owner_client, hooked):
    delivery = _delivery(hooked, error="Connection refused: nothing accepts connections at hooks.example:443.")
    Attempt.objects.create(
        delivery=delivery, number=1, url=hooked.webhook_url, started_at=timezone.now(), duration_ms=3,
        status_code=None, error="Connection refused: nothing accepts connections at hooks.example:443.",
        error_detail="HTTPConnection(host='hooks.example', port=443): Failed to establish a new connection: [Errno 111]",
        request_headers={"webhook-id": delivery.message_id, "webhook-signature": "v1,abc"},
    )
    response = owner_client.get(_log(hooked))
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="delivery-log"') and "<html" not in html
    assert 'data-live="true"' in html
    assert "Connection refused: nothing accepts connections at hooks.example:443." in html
    assert "Errno" not in html and "HTTPConnection" not in html  # the raw text is for staff only
    assert f"webhook-id: {delivery.message_id}" in html and "webhook-signature: v1,abc" in html
    assert "&quot;order&quot;" in html  # the request body


def test_the_log_shows_the_response_status_headers_and_body(owner_client, hooked):
    delivery = _delivery(hooked, status="failed", error="HTTP 500 from the endpoint.")
    Attempt.objects.create(
        delivery=delivery, number=1, url=hooked.webhook_url, started_at=timezone.now(), status_code=500,
        response_headers={"Server": "tiny/1"}, response_excerpt="kaput", error="HTTP 500 from the endpoint.",
    )
    html = owner_client.get(_log(hooked)).content.decode()
    assert "Response: HTTP 500" in html and "Server: tiny/1" in html and "kaput" in html
    assert 'data-live="false"' in html


def test_the_log_filters_by_status_and_event(owner_client, hooked):
    done = _delivery(hooked, event="order_created", status="succeeded")
    failed = _delivery(hooked, event="order_refunded", status="failed")
    sending = _delivery(hooked, event="ping", status="sending")

    def shown(query):
        html = owner_client.get(_log(hooked, query)).content.decode()
        return {pk for pk in (done.pk, failed.pk, sending.pk) if f'id="delivery-{pk}"' in html}

    assert shown("") == {done.pk, failed.pk, sending.pk}
    assert shown("status=failed") == {failed.pk}
    assert shown("status=pending") == {sending.pk}  # being sent is still pending to the developer
    assert shown("event=order_created") == {done.pk}
    assert shown("status=failed&event=order_created") == set()
    page = owner_client.get(_detail(hooked) + "?status=succeeded").content.decode()
    assert f'id="delivery-{done.pk}"' in page and f'id="delivery-{failed.pk}"' not in page
    # the event filter offers the events the app has deliveries of
    assert '<option value="order_refunded"' in page


def test_the_poll_url_keeps_the_filters(owner_client, hooked):
    _delivery(hooked)
    html = owner_client.get(_log(hooked, "status=pending&event=order_created")).content.decode()
    assert f'data-poll-url="/developers/apps/{hooked.pk}/webhook-deliveries?status=pending&amp;event=order_created"' in html


def test_an_unknown_status_filter_is_a_400_with_a_reason(owner_client, hooked):
    _delivery(hooked)
    response = owner_client.get(_log(hooked, "status=exploded"))
    assert response.status_code == 400
    assert 'id="log-filter-errors"' in response.content.decode()
    assert owner_client.get(_detail(hooked) + "?status=exploded").status_code == 400
    assert owner_client.get(_log(hooked, "event=" + "x" * 41)).status_code == 400


@pytest.mark.parametrize("count", [1, 20])
def test_the_log_fragment_costs_the_same_queries_for_1_and_20_deliveries(
    owner_client, hooked, count, django_assert_num_queries
):
    for _ in range(count):
        delivery = _delivery(hooked)
        Attempt.objects.create(delivery=delivery, number=1, url=hooked.webhook_url, started_at=timezone.now())
    # 1 session, 2 user, 3 the app, 4 the deliveries, 5 their attempts, 6 the event names
    with django_assert_num_queries(6):
        assert owner_client.get(_log(hooked)).status_code == 200


@pytest.mark.parametrize("count", [1, 20])
def test_the_app_page_costs_the_same_queries_for_1_and_20_deliveries(
    owner_client, hooked, count, django_assert_num_queries
):
    for _ in range(count):
        delivery = _delivery(hooked)
        Attempt.objects.create(delivery=delivery, number=1, url=hooked.webhook_url, started_at=timezone.now())
    # 1 session, 2 user, 3 the app, 4 user count, 5 deliveries, 6 attempts, 7 event names, 8 read-only token,
    # 9 the webhook event selection
    with django_assert_num_queries(9):
        assert owner_client.get(_detail(hooked)).status_code == 200


def test_another_users_deliveries_never_show(owner_client, hooked):
    foreign_app = ApplicationFactory(user=UserFactory(), webhook_url="https://x.example/h")
    foreign = _delivery(foreign_app)
    assert f'id="delivery-{foreign.pk}"' not in owner_client.get(_log(hooked)).content.decode()


def test_the_webhook_section_is_a_partial_with_room_for_the_event_choice():
    from django.template.loader import get_template

    # The Django backend's Template wraps the engine's one as `.template`; django-stubs does not declare it.
    source = get_template("developers/app_detail.html").template.source  # type: ignore[attr-defined]
    assert '{% include "developers/_app_webhook.html" %}' in source
    assert '{% include "developers/_delivery_log.html" %}' in source


def test_issuing_the_readonly_token_stores_no_plain_value(own_app):
    token = services.application_issue_readonly_token(application=own_app)
    assert type(token).objects.filter(pk=token.pk, token="").exists()
