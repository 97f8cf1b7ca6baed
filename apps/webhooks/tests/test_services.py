"""The outbox (webhook_event_record) and delivery against a real HTTP receiver on loopback."""
import json
import socket
import time
from typing import Any
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from apps.oauth.tests.factories import ApplicationFactory
from apps.webhooks import rules, services, signing
from apps.webhooks.models import Attempt, Delivery

ORDER = {"order": {"id": "7", "thing_id": "12", "amount": "10.00", "status": "pending"}}


def _record(app, event="order_created", payload=ORDER):
    with transaction.atomic():
        return services.webhook_event_record(application=app, event=event, payload=payload)


def _deliver(*, delivery_id: int) -> Delivery:
    """services.webhook_deliver where the test expects it to claim the delivery (None: nothing claimed)."""
    delivery = services.webhook_deliver(delivery_id=delivery_id)
    assert delivery is not None, "the delivery was not claimed"
    return delivery


def _make_due(delivery):
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


# --- outbox ----------------------------------------------------------------------------------------


def test_recording_an_event_writes_a_pending_row_due_now(hook_app):
    delivery = _record(hook_app)
    assert delivery.status == "pending"
    assert delivery.next_attempt_at <= timezone.now()
    assert delivery.message_id.startswith("msg_") and len(delivery.message_id) == 36
    assert delivery.payload == {"event": "order_created", **ORDER}


def test_a_ping_body_is_only_the_event(hook_app):
    assert _record(hook_app, event="ping", payload={"ignored": "x"}).payload == {"event": "ping"}


def test_nothing_is_recorded_for_an_app_without_a_webhook_url(db):
    assert _record(ApplicationFactory(webhook_url="")) is None
    assert not Delivery.objects.exists()


def test_an_event_of_a_disabled_endpoint_is_recorded_cancelled_and_not_sent(hook_app, receiver, allow_private,
                                                                            django_capture_on_commit_callbacks):
    hook_app.webhook_disabled_at = timezone.now()
    hook_app.save()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        delivery = _record(hook_app)
    assert delivery.status == "cancelled"
    assert callbacks == []
    assert receiver.requests == []


def test_the_row_and_the_send_happen_only_when_the_transaction_commits(hook_app, receiver, allow_private,
                                                                      django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError):
            with transaction.atomic():
                services.webhook_event_record(application=hook_app, event="order_created", payload=ORDER)
                raise RuntimeError("the order failed")
    assert callbacks == []
    assert not Delivery.objects.exists()
    assert receiver.requests == []


# --- delivery ---------------------------------------------------------------------------------------


def test_a_committed_event_arrives_once_with_a_valid_signature(hook_app, receiver, allow_private,
                                                              django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        delivery = _record(hook_app)
    assert receiver.wait_for(1)
    request = receiver.requests[0]
    assert signing.verify(secret=hook_app.webhook_secret, headers=request["headers"], body=request["body"]) == {
        "event": "order_created", **ORDER
    }
    assert request["headers"]["webhook-id"] == delivery.message_id
    assert request["headers"]["Content-Type"] == "application/json"
    assert request["headers"]["User-Agent"] == "Thingyard-Webhooks/1"
    assert request["path"] == "/hook"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count, delivery.delivered_at is not None) == ("succeeded", 1, True)
    attempt = delivery.attempts.get()
    assert (attempt.number, attempt.status_code, attempt.response_excerpt, attempt.error) == (1, 200, "ok", "")
    assert attempt.remote_address == "127.0.0.1"
    time.sleep(0.2)
    assert len(receiver.requests) == 1


def test_a_second_worker_finds_nothing_to_claim(hook_app, receiver, allow_private):
    delivery = _record(hook_app)
    assert _deliver(delivery_id=delivery.pk).status == "succeeded"
    assert services.webhook_deliver(delivery_id=delivery.pk) is None
    assert len(receiver.requests) == 1


def test_a_delivery_not_yet_due_is_not_sent(hook_app, receiver, allow_private):
    delivery = _record(hook_app)
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() + timedelta(minutes=5))
    assert services.webhook_deliver(delivery_id=delivery.pk) is None
    assert receiver.requests == []


def test_a_receiver_failing_three_times_gets_it_on_the_fourth_attempt_with_the_same_id(hook_app, receiver,
                                                                                      allow_private):
    receiver.respond((500, {}, b"boom"), (503, {}, b"busy"), (404, {}, b"nope"))
    delivery = _record(hook_app)
    for expected_delay in rules.RETRY_SCHEDULE[:3]:
        before = timezone.now()
        failed = _deliver(delivery_id=delivery.pk)
        assert failed.status == "pending" and failed.next_attempt_at is not None
        assert expected_delay * 0.79 <= failed.next_attempt_at - before <= expected_delay * 1.21 + timedelta(seconds=1)
        _make_due(delivery)
    assert _deliver(delivery_id=delivery.pk).status == "succeeded"
    assert [r["headers"]["webhook-id"] for r in receiver.requests] == [delivery.message_id] * 4
    assert len({r["body"] for r in receiver.requests}) == 1  # the same bytes every time
    assert list(Attempt.objects.filter(delivery=delivery).order_by("number").values_list("number", "status_code")) == [
        (1, 500), (2, 503), (3, 404), (4, 200)
    ]
    assert Attempt.objects.get(delivery=delivery, number=1).response_excerpt == "boom"


def test_it_gives_up_after_the_last_attempt(hook_app, receiver, allow_private):
    delivery = _record(hook_app)
    Delivery.objects.filter(pk=delivery.pk).update(attempt_count=rules.MAX_ATTEMPTS - 1)
    receiver.respond((500, {}, b""))
    delivery = _deliver(delivery_id=delivery.pk)
    assert (delivery.status, delivery.attempt_count, delivery.next_attempt_at) == ("failed", rules.MAX_ATTEMPTS, None)


def test_a_410_disables_the_endpoint_and_cancels_its_pending_deliveries(hook_app, receiver, allow_private):
    first, second = _record(hook_app), _record(hook_app, event="order_refunded")
    other_app = ApplicationFactory(webhook_url=receiver.url)
    others = _record(other_app)
    receiver.respond((410, {}, b"gone"))
    assert _deliver(delivery_id=first.pk).status == "cancelled"
    hook_app.refresh_from_db()
    assert hook_app.webhook_disabled_at is not None
    assert "410" in hook_app.webhook_disabled_reason
    second.refresh_from_db()
    assert second.status == "cancelled"
    assert services.webhook_deliver(delivery_id=second.pk) is None
    others.refresh_from_db()
    assert others.status == "pending"
    assert len(receiver.requests) == 1


@pytest.mark.parametrize("status", [301, 302, 307])
def test_a_redirect_is_refused_logged_and_not_followed(hook_app, receiver, allow_private, status):
    receiver.respond((status, {"Location": f"http://127.0.0.1:{receiver.port}/elsewhere"}, b""))
    delivery = _deliver(delivery_id=_record(hook_app).pk)
    time.sleep(0.2)
    assert [r["path"] for r in receiver.requests] == ["/hook"]
    assert delivery.status == "pending"
    attempt = delivery.attempts.get()
    assert attempt.status_code == status
    assert "Redirect refused" in attempt.error and "/elsewhere" in attempt.error


@pytest.mark.parametrize("url", ["http://127.0.0.1:{port}/hook", "http://10.1.2.3:{port}/hook",
                                 "http://localhost:{port}/hook", "http://[::1]:{port}/hook"])
def test_a_private_address_is_refused_when_the_setting_is_off(db, receiver, settings, url):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = False
    app = ApplicationFactory(webhook_url=url.format(port=receiver.port))
    delivery = _deliver(delivery_id=_record(app).pk)
    assert receiver.requests == []
    assert delivery.status == "pending"  # retried later: the name may resolve elsewhere by then
    attempt = delivery.attempts.get()
    assert attempt.status_code is None
    assert "non-public address" in attempt.error
    assert delivery.last_error == attempt.error


@pytest.fixture
def fake_dns(monkeypatch):
    """`rebind.test` resolves to answers[0] on the first lookup and answers[1] afterwards."""
    real = socket.getaddrinfo
    state: dict[str, Any] = {"answers": [], "lookups": 0}

    def getaddrinfo(host, port, *args, **kwargs):
        if host != "rebind.test":
            return real(host, port, *args, **kwargs)
        address = state["answers"][min(state["lookups"], len(state["answers"]) - 1)]
        state["lookups"] += 1
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port or 80))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return state


def test_the_connection_goes_to_the_address_that_was_checked(db, receiver, allow_private, fake_dns):
    # Checked: 127.0.0.1 (the receiver). A second lookup would give an address nobody listens on.
    fake_dns["answers"] = ["127.0.0.1", "10.255.255.1"]
    app = ApplicationFactory(webhook_url=f"http://rebind.test:{receiver.port}/hook")
    delivery = _deliver(delivery_id=_record(app).pk)
    assert delivery.status == "succeeded"
    assert fake_dns["lookups"] == 1
    assert receiver.requests[0]["headers"]["Host"] == f"rebind.test:{receiver.port}"
    assert delivery.attempts.get().remote_address == "127.0.0.1"


def test_a_name_rebound_to_loopback_after_the_check_is_not_reached(db, receiver, settings, fake_dns):
    # The check sees a public address; a rebinding attacker answers 127.0.0.1 to any later lookup.
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = False
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    fake_dns["answers"] = ["192.88.99.200", "127.0.0.1"]  # a public address unreachable from here
    app = ApplicationFactory(webhook_url=f"http://rebind.test:{receiver.port}/hook")
    delivery = _deliver(delivery_id=_record(app).pk)
    assert fake_dns["lookups"] == 1
    assert receiver.requests == []
    attempt = delivery.attempts.get()
    assert attempt.remote_address == "192.88.99.200"
    assert attempt.status_code is None and attempt.error


def test_a_receiver_slower_than_the_timeout_is_a_failed_attempt(hook_app, receiver, allow_private, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    receiver.respond(("sleep", 2))
    started = time.monotonic()
    delivery = _deliver(delivery_id=_record(hook_app).pk)
    assert time.monotonic() - started < 1.5
    assert delivery.status == "pending"
    attempt = delivery.attempts.get()
    assert attempt.status_code is None
    assert "Timed out" in attempt.error
    assert attempt.duration_ms is not None and 400 <= attempt.duration_ms < 1500


def test_a_refused_connection_is_a_failed_attempt(db, allow_private):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    app = ApplicationFactory(webhook_url=f"http://127.0.0.1:{port}/hook")
    delivery = _deliver(delivery_id=_record(app).pk)
    assert delivery.status == "pending"
    attempt = delivery.attempts.get()
    # In plain words for the developer; the exception's own text is kept for staff only.
    assert attempt.error == f"Connection refused: nothing accepts connections at 127.0.0.1:{port}."
    assert "Errno" not in attempt.error and "HTTPConnection" not in attempt.error
    assert "111" in attempt.error_detail or "refused" in attempt.error_detail.lower()
    assert delivery.last_error == attempt.error


def test_the_response_excerpt_is_bounded(hook_app, receiver, allow_private):
    receiver.respond((500, {}, b"x" * 100_000))
    delivery = _deliver(delivery_id=_record(hook_app).pk)
    assert len(delivery.attempts.get().response_excerpt) == rules.RESPONSE_EXCERPT_BYTES


def test_a_delivery_of_an_app_whose_url_was_removed_is_cancelled(hook_app, receiver, allow_private):
    delivery = _record(hook_app)
    type(hook_app).objects.filter(pk=hook_app.pk).update(webhook_url="")
    assert _deliver(delivery_id=delivery.pk).status == "cancelled"
    assert receiver.requests == []


# --- sweep, dispatch, redelivery --------------------------------------------------------------------


def test_the_sweep_requeues_a_delivery_whose_worker_died(hook_app, receiver, allow_private,
                                                        django_capture_on_commit_callbacks):
    delivery = _record(hook_app)
    claimed_at = timezone.now() - rules.STALE_SENDING_AFTER - timedelta(seconds=1)
    Delivery.objects.filter(pk=delivery.pk).update(status="sending", claimed_at=claimed_at, attempt_count=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.webhook_sweep_stale() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == ("succeeded", 2)
    assert receiver.requests[0]["headers"]["webhook-id"] == delivery.message_id
    lost, sent = delivery.attempts.order_by("number")
    assert (lost.number, lost.status_code, "worker stopped" in lost.error) == (1, None, True)
    assert (sent.number, sent.status_code) == (2, 200)


def test_the_sweep_leaves_a_recent_claim_alone(hook_app):
    delivery = _record(hook_app)
    Delivery.objects.filter(pk=delivery.pk).update(status="sending", claimed_at=timezone.now(), attempt_count=1)
    assert services.webhook_sweep_stale() == 0
    delivery.refresh_from_db()
    assert delivery.status == "sending"


def test_a_worker_finishing_after_being_swept_does_not_overwrite_the_row(hook_app, receiver, allow_private):
    from apps.webhooks import delivery as http

    delivery = _record(hook_app)
    Delivery.objects.filter(pk=delivery.pk).update(status="sending", claimed_at=timezone.now(), attempt_count=1)
    swept_and_reclaimed = Delivery.objects.get(pk=delivery.pk)
    Delivery.objects.filter(pk=delivery.pk).update(attempt_count=2)  # swept, then claimed again
    services._attempt_record(delivery=swept_and_reclaimed, url=receiver.url, started_at=timezone.now(),
                             result=http.SendResult(status_code=500))
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == ("sending", 2)
    assert not delivery.attempts.exists()


def test_dispatch_enqueues_due_retries_only(hook_app, receiver, allow_private):
    due, later, _fresh = _record(hook_app), _record(hook_app), _record(hook_app)
    now = timezone.now()
    Delivery.objects.filter(pk=due.pk).update(next_attempt_at=now - timedelta(minutes=1))
    Delivery.objects.filter(pk=later.pk).update(next_attempt_at=now + timedelta(hours=2))
    assert services.webhook_dispatch_due() == 1  # the fresh one has its own message already
    assert [r["headers"]["webhook-id"] for r in receiver.requests] == [due.message_id]


def test_redelivery_sends_the_same_event_again_with_the_same_id(hook_app, receiver, allow_private,
                                                               django_capture_on_commit_callbacks):
    delivery = _deliver(delivery_id=_record(hook_app).pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.delivery_redeliver(delivery=delivery)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == ("succeeded", 2)
    assert [r["headers"]["webhook-id"] for r in receiver.requests] == [delivery.message_id] * 2
    assert json.loads(receiver.requests[1]["body"]) == {"event": "order_created", **ORDER}
