"""Webhook writes: the outbox row, claiming and sending it, retries, the sweep, redelivery (spec §6).

Life of a delivery (docs/decisions.md: Webhooks):
  pending ──claim (conditional UPDATE)──▶ sending ──2xx──▶ succeeded
                                             ├──410──▶ cancelled (endpoint disabled, its pending cancelled)
                                             ├──other failure──▶ pending, due after the retry schedule
                                             │                   (failed after the last attempt)
                                             └──worker died──▶ (sweep) pending, due now
The claim increments `attempt_count`; an attempt's result is written only while the row is still
`sending` with that count, so a swept-and-reclaimed row is never overwritten by the worker that lost it.
Delivery is at least once: receivers dedupe on `webhook-id` (= message_id, the same on every attempt).
"""
import logging
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from oauth2_provider.models import get_application_model

from apps.core.broker.enqueue import task_enqueue
from apps.core.domain.exceptions import RuleViolation, ValidationFailed
from apps.webhooks import delivery as http
from apps.webhooks import catalog, rules, selectors, signing
from apps.webhooks.models import Attempt, Delivery, EventSelection

logger = logging.getLogger(__name__)
Application = get_application_model()


def _enqueue(delivery_id: int, *, countdown: float | None = None) -> None:
    from apps.webhooks.tasks import deliver  # tasks import this module

    # The outbox row is the record: with the broker down the request still succeeds and
    # webhooks_dispatch_due (every 30 s) queues the pending, due row once Redis is back.
    task_enqueue(deliver, (delivery_id,), countdown=countdown or None, sweep="webhooks_dispatch_due")


def _enqueue_on_commit(delivery_id: int, *, countdown: float | None = None) -> None:
    transaction.on_commit(lambda: _enqueue(delivery_id, countdown=countdown))


def webhook_event_record(*, application, event: str, payload: dict, subject_user_ids=()):
    """Write the outbox row for `event` (inside the caller's transaction) and enqueue it on commit.

    The body is `{"event": event, **payload}` (ping: `{"event": "ping"}`). Returns the Delivery, or None
    when the app has no webhook URL or did not choose the event (selectors.application_events: the order
    events unless the developer turned them off); nothing is recorded then. While the endpoint is
    disabled (it answered 410) the event is recorded as `cancelled`, so the developer sees what was
    missed and can redeliver it after re-enabling. Side effects: enqueues `deliver` on commit.
    """
    if not application.webhook_url:
        return None
    if event != "ping" and event not in selectors.application_events(application=application):
        return None
    body = {"event": event} if event == "ping" else {**payload, "event": event}
    blocked = rules.endpoint_send_blockers(application)
    delivery = Delivery.objects.create(
        application=application,
        event=event,
        message_id=f"msg_{uuid.uuid4().hex}",
        payload=body,
        subject_user_ids=list(subject_user_ids),
        status=Delivery.Status.CANCELLED if blocked else Delivery.Status.PENDING,
        next_attempt_at=None if blocked else timezone.now(),
        last_error=blocked[0] if blocked else "",
    )
    if not blocked:
        _enqueue_on_commit(delivery.pk)
    return delivery


def webhook_user_event_record(*, user_ids, event: str, payload: Callable[[], dict]) -> list[Delivery]:
    """Record `event` about a user's content (catalog.USER_EVENTS) for every app subscribed to it: one
    that one of `user_ids` authorized, with a webhook URL, that chose the event. Runs inside the caller's
    transaction (each row commits with the change, as order events do).

    One query when no app is subscribed (the common case); `payload()` is built only when one is, once,
    and shared by every app. Returns the deliveries written. Side effects: enqueues `deliver` on commit.
    """
    if event not in catalog.USER_EVENTS:
        raise ValueError(f"{event} is not an event about a user's content")
    applications = selectors.application_list_subscribed(user_ids=user_ids, event=event)
    if not applications:
        return []
    body = payload()
    subjects = [uid for uid in dict.fromkeys(user_ids) if uid is not None]
    deliveries = []
    for application in applications:
        delivery = webhook_event_record(application=application, event=event, payload=body, subject_user_ids=subjects)
        if delivery is not None:
            deliveries.append(delivery)
    return deliveries


def webhook_events_select(*, application, events) -> EventSelection:
    """Store the events `application` receives (the portal's selection); replaces the previous choice.

    ValidationFailed for a name not in the catalog."""
    events = list(dict.fromkeys(events))
    errors = rules.event_selection_errors(events)
    if errors:
        raise ValidationFailed(errors[0], errors={"events": errors})
    chosen = [name for name in catalog.NAMES if name in events]  # catalog order
    selection, _ = EventSelection.objects.update_or_create(application=application, defaults={"events": chosen})
    application.webhook_event_selection = selection
    return selection


def _claim(delivery_id: int, now) -> bool:
    return (
        Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING, next_attempt_at__lte=now).update(
            status=Delivery.Status.SENDING, claimed_at=now, attempt_count=F("attempt_count") + 1
        )
        == 1
    )


def _still_ours(delivery: Delivery):
    return Delivery.objects.filter(
        pk=delivery.pk, status=Delivery.Status.SENDING, attempt_count=delivery.attempt_count
    )


def webhook_deliver(*, delivery_id: int) -> Delivery | None:
    """Claim the delivery if it is pending and due, send one attempt, record it; None if not claimed.

    Safe to run twice: only one caller wins the claim. No transaction is open during the HTTP call.
    Side effects: a retry due within a minute is enqueued with a countdown on commit.
    """
    now = timezone.now()
    if not _claim(delivery_id, now):
        return None
    delivery = Delivery.objects.select_related("application").get(pk=delivery_id)
    application = delivery.application
    blocked = rules.endpoint_send_blockers(application)
    if not blocked and delivery.subject_user_ids and not selectors.application_is_authorized_by_any(
        application=application, user_ids=delivery.subject_user_ids
    ):
        blocked = ["The user revoked the application: the event is not sent."]
    if blocked:
        _still_ours(delivery).update(
            status=Delivery.Status.CANCELLED, claimed_at=None, next_attempt_at=None, last_error=blocked[0]
        )
        delivery.refresh_from_db()
        return delivery

    url = application.webhook_url
    body = signing.body_bytes(delivery.payload)
    headers = signing.headers(
        secret=application.webhook_secret, message_id=delivery.message_id, timestamp=int(time.time()), body=body
    )
    result = http.post(
        url=url,
        body=body,
        headers=headers,
        timeout=rules.timeout_seconds(),
        allow_private=settings.ALLOW_PRIVATE_WEBHOOK_URLS,
        excerpt_bytes=rules.RESPONSE_EXCERPT_BYTES,
    )
    fields = _attempt_record(delivery=delivery, url=url, started_at=now, result=result, request_headers=headers)
    if fields is None:
        delivery.refresh_from_db()
    else:
        for name, value in fields.items():
            setattr(delivery, name, value)
    return delivery


def _attempt_record(
    *, delivery: Delivery, url: str, started_at, result: http.SendResult, request_headers: dict | None = None
) -> dict | None:
    """Write the attempt and the row's next state; returns the fields written, None if the row moved on."""
    outcome = rules.attempt_outcome(result.status_code)
    if result.error or outcome == rules.Outcome.SUCCEEDED:
        error = result.error
    else:
        error = http.describe_status(result.status_code or 0)
    now = timezone.now()
    countdown = None
    with transaction.atomic():
        if outcome == rules.Outcome.SUCCEEDED:
            fields = dict(status=Delivery.Status.SUCCEEDED, delivered_at=now, next_attempt_at=None, last_error="")
        elif outcome == rules.Outcome.GONE:
            fields = dict(
                status=Delivery.Status.CANCELLED,
                next_attempt_at=None,
                last_error="HTTP 410 Gone from the endpoint: deliveries to it are disabled.",
            )
        else:
            delay = rules.retry_delay(attempt_count=delivery.attempt_count)
            if delay is None:
                fields = dict(status=Delivery.Status.FAILED, next_attempt_at=None, last_error=error)
            else:
                fields = dict(status=Delivery.Status.PENDING, next_attempt_at=now + delay, last_error=error)
                if delay <= rules.COUNTDOWN_MAX:
                    countdown = delay.total_seconds()
        if _still_ours(delivery).update(claimed_at=None, **fields) != 1:
            # The sweep took the row back (this worker looked dead) and it has moved on: its own
            # bookkeeping stands; this late result is only logged.
            logger.warning("webhook delivery %s attempt %s finished after being swept", delivery.pk, delivery.attempt_count)
            return None
        Attempt.objects.create(
            delivery=delivery,
            number=delivery.attempt_count,
            url=url,
            started_at=started_at,
            duration_ms=result.duration_ms,
            remote_address=result.address,
            status_code=result.status_code,
            response_excerpt=result.excerpt,
            request_headers=request_headers or {},
            response_headers=result.response_headers,
            error=error,
            error_detail=result.detail,
        )
        if outcome == rules.Outcome.GONE:
            _endpoint_disable(application_id=delivery.application_id, url=url, reason=f"{url} answered 410 Gone")
        if countdown is not None:
            _enqueue_on_commit(delivery.pk, countdown=countdown)
    return {**fields, "claimed_at": None}


def _endpoint_disable(*, application_id: int, url: str, reason: str) -> None:
    # Only if the URL is still the one that answered 410: a URL saved meanwhile re-enabled the endpoint.
    Application.objects.filter(pk=application_id, webhook_url=url, webhook_disabled_at__isnull=True).update(
        webhook_disabled_at=timezone.now(), webhook_disabled_reason=reason[:200]
    )
    Delivery.objects.filter(application_id=application_id, status=Delivery.Status.PENDING).update(
        status=Delivery.Status.CANCELLED, next_attempt_at=None, last_error="Endpoint disabled (410 Gone)"
    )


def webhook_dispatch_due(*, now=None, limit: int = rules.DISPATCH_BATCH) -> int:
    """Enqueue pending deliveries that are due (retries scheduled hours ahead, lost messages); returns count.

    Rows due within the last few seconds are left alone: they have their own message in the queue.
    Enqueuing one twice is harmless (the claim lets one through).
    """
    now = now or timezone.now()
    ids = list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now - rules.DISPATCH_GRACE)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    for pk in ids:
        _enqueue(pk)
    return len(ids)


def webhook_sweep_stale(*, now=None) -> int:
    """Put deliveries whose worker died mid-attempt back to pending, due now; returns how many.

    The lost attempt is logged with no answer. The endpoint may have received it: delivery is at
    least once and the retry carries the same `webhook-id`. Side effects: enqueues `deliver` on commit.
    """
    now = now or timezone.now()
    cutoff = now - rules.STALE_SENDING_AFTER
    swept = 0
    stale = Delivery.objects.filter(status=Delivery.Status.SENDING, claimed_at__lt=cutoff)
    for delivery in stale.select_related("application"):
        with transaction.atomic():
            taken = Delivery.objects.filter(
                pk=delivery.pk, status=Delivery.Status.SENDING, attempt_count=delivery.attempt_count, claimed_at__lt=cutoff
            ).update(
                status=Delivery.Status.PENDING,
                claimed_at=None,
                next_attempt_at=now,
                last_error="The worker stopped during the attempt; re-queued.",
            )
            if not taken:
                continue
            Attempt.objects.get_or_create(
                delivery=delivery,
                number=delivery.attempt_count,
                defaults=dict(
                    url=delivery.application.webhook_url or "http://invalid/",
                    started_at=delivery.claimed_at,
                    error="No result: the worker stopped during this attempt; re-queued.",
                ),
            )
            _enqueue_on_commit(delivery.pk)
            swept += 1
    if swept:
        logger.warning("webhook sweep re-queued %s stalled deliveries", swept)
    return swept


def delivery_redeliver(*, delivery: Delivery) -> Delivery:
    """Send the same event again (same webhook-id): pending and due now, whatever its state was.

    Side effects: enqueues `deliver` on commit.
    """
    with transaction.atomic():
        locked = Delivery.objects.select_for_update().select_related("application").get(pk=delivery.pk)
        blockers = rules.delivery_redeliver_blockers(locked)
        if blockers:
            raise RuleViolation("The delivery cannot be sent again now.", errors=blockers)
        locked.status = Delivery.Status.PENDING
        locked.next_attempt_at = timezone.now()
        locked.last_error = ""
        locked.save(update_fields=["status", "next_attempt_at", "last_error"])
        _enqueue_on_commit(locked.pk)
    return locked


def webhook_ping(*, application) -> Delivery:
    """The portal's "Send test event": a `ping` delivery (spec §6: the body is only {event})."""
    blockers = rules.endpoint_send_blockers(application)
    if blockers:
        raise RuleViolation("The test event cannot be sent.", errors=blockers)
    with transaction.atomic():
        return webhook_event_record(application=application, event="ping", payload={})
