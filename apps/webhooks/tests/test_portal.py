"""The webhook part of the developer portal (/developers/apps/<id>/) and the admin (docs/decisions.md: Webhooks)."""
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.developers import services as developer_services
from apps.webhooks import services
from apps.webhooks.models import Delivery


def _detail(app):
    return reverse("developers:app-detail", args=[app.pk])


def _ping(app):
    return reverse("developers:app-webhook-ping", args=[app.pk])


def _redeliver(app, delivery):
    return reverse("developers:app-webhook-redeliver", args=[app.pk, delivery.pk])


def test_send_test_event_delivers_a_ping(owner_client, hook_app, receiver, allow_private,
                                         django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(_ping(hook_app))
    assert response.status_code == 302
    assert receiver.wait_for(1)
    assert receiver.requests[0]["body"] == b'{"event":"ping"}'
    assert Delivery.objects.get().status == "succeeded"


def test_send_test_event_without_a_webhook_url_shows_an_error(owner_client, hook_app):
    type(hook_app).objects.filter(pk=hook_app.pk).update(webhook_url="")
    response = owner_client.post(_ping(hook_app), follow=True)
    assert "no webhook URL" in response.content.decode()
    assert not Delivery.objects.exists()


def test_send_test_event_to_a_disabled_endpoint_shows_an_error(owner_client, hook_app):
    type(hook_app).objects.filter(pk=hook_app.pk).update(webhook_disabled_at=timezone.now())
    response = owner_client.post(_ping(hook_app), follow=True)
    assert "disabled" in response.content.decode()
    assert not Delivery.objects.exists()


def test_send_test_event_is_post_only(owner_client, hook_app):
    assert owner_client.get(_ping(hook_app)).status_code == 405


def test_send_test_event_needs_the_csrf_token(owner, hook_app):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(_ping(hook_app)).status_code == 403
    assert not Delivery.objects.exists()


def test_it_rejects_another_users_test_event_and_redelivery(stranger_client, hook_app):
    delivery = services.webhook_event_record(application=hook_app, event="ping", payload={})
    assert stranger_client.post(_ping(hook_app)).status_code == 404
    assert stranger_client.post(_redeliver(hook_app, delivery)).status_code == 404
    assert Delivery.objects.count() == 1


def test_anonymous_is_sent_to_log_in(client, hook_app):
    response = client.post(_ping(hook_app))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_it_rejects_redelivering_another_apps_delivery(owner_client, hook_app, owner):
    from apps.oauth.tests.factories import ApplicationFactory

    foreign = services.webhook_event_record(application=ApplicationFactory(webhook_url="https://x.example/h"),
                                            event="ping", payload={})
    assert owner_client.post(_redeliver(hook_app, foreign)).status_code == 404


def test_the_page_lists_recent_deliveries_with_their_attempts(owner_client, hook_app, receiver, allow_private):
    receiver.respond((500, {}, b"kaput"))
    delivery = services.webhook_event_record(application=hook_app, event="order_created", payload={"order": {}})
    services.webhook_deliver(delivery_id=delivery.pk)
    page = owner_client.get(_detail(hook_app)).content.decode()
    assert delivery.message_id in page
    assert "order_created" in page
    assert "HTTP 500" in page and "kaput" in page
    assert _redeliver(hook_app, delivery) in page
    assert "Send test event" in page


def test_the_delivery_list_costs_the_same_queries_for_1_and_20_deliveries(owner_client, hook_app):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    services.webhook_event_record(application=hook_app, event="ping", payload={})
    with CaptureQueriesContext(connection) as one:
        owner_client.get(_detail(hook_app))
    for _ in range(19):
        services.webhook_event_record(application=hook_app, event="ping", payload={})
    with CaptureQueriesContext(connection) as twenty:
        owner_client.get(_detail(hook_app))
    assert len(twenty) == len(one)


def test_redeliver_sends_the_same_delivery_again(owner_client, hook_app, receiver, allow_private,
                                                 django_capture_on_commit_callbacks):
    delivery = services.webhook_event_record(application=hook_app, event="order_created", payload={"order": {}})
    services.webhook_deliver(delivery_id=delivery.pk)
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(_redeliver(hook_app, delivery))
    assert response.status_code == 302
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == ("succeeded", 2)
    assert {r["headers"]["webhook-id"] for r in receiver.requests} == {delivery.message_id}
    assert Delivery.objects.count() == 1


def test_the_disabled_state_is_shown_and_saving_the_url_re_enables(owner_client, hook_app, allow_private):
    type(hook_app).objects.filter(pk=hook_app.pk).update(
        webhook_disabled_at=timezone.now(), webhook_disabled_reason="it answered 410 Gone"
    )
    page = owner_client.get(_detail(hook_app)).content.decode()
    assert 'id="webhook-disabled"' in page and "410" in page
    hook_app.refresh_from_db()
    developer_services.application_update(application=hook_app, webhook_url=hook_app.webhook_url)
    hook_app.refresh_from_db()
    assert (hook_app.webhook_disabled_at, hook_app.webhook_disabled_reason) == (None, "")
    assert 'id="webhook-disabled"' not in owner_client.get(_detail(hook_app)).content.decode()


def test_redelivery_to_a_disabled_endpoint_is_refused_with_a_reason(owner_client, hook_app):
    delivery = services.webhook_event_record(application=hook_app, event="ping", payload={})
    type(hook_app).objects.filter(pk=hook_app.pk).update(webhook_disabled_at=timezone.now())
    response = owner_client.post(_redeliver(hook_app, delivery), follow=True)
    assert "save the webhook URL again" in response.content.decode()


# --- admin -------------------------------------------------------------------------------------------


@pytest.fixture
def admin_client_(db):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def test_the_admin_lists_filters_and_shows_attempts(admin_client_, hook_app, receiver, allow_private):
    delivery = services.webhook_event_record(application=hook_app, event="order_created", payload={"order": {}})
    services.webhook_deliver(delivery_id=delivery.pk)
    listing = admin_client_.get(reverse("admin:webhooks_delivery_changelist"), {"status": "succeeded"})
    assert listing.status_code == 200 and delivery.message_id not in listing.content.decode()  # id column only
    assert f"/admin/webhooks/delivery/{delivery.pk}/change/" in listing.content.decode()
    detail = admin_client_.get(reverse("admin:webhooks_delivery_change", args=[delivery.pk]))
    assert detail.status_code == 200 and delivery.message_id in detail.content.decode()
    assert admin_client_.get(reverse("admin:webhooks_attempt_changelist")).status_code == 200


def test_the_admin_redeliver_action_queues_the_delivery_again(admin_client_, hook_app, receiver, allow_private,
                                                              django_capture_on_commit_callbacks):
    delivery = services.webhook_event_record(application=hook_app, event="order_created", payload={"order": {}})
    services.webhook_deliver(delivery_id=delivery.pk)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client_.post(
            reverse("admin:webhooks_delivery_changelist"),
            {"action": "redeliver", "_selected_action": [delivery.pk]},
        )
    assert response.status_code == 302
    delivery.refresh_from_db()
    assert delivery.attempt_count == 2
    assert len(receiver.requests) == 2
