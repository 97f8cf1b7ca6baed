"""Pure rules of webhook delivery: the retry schedule, what an answer means, who may redeliver.

docs/decisions.md (Webhooks): success is any 2xx within 10 s; otherwise retry with exponential backoff and
jitter for about 3 days, then give up; a 410 disables the endpoint.
"""
import random
from datetime import timedelta

from django.conf import settings

from apps.webhooks import catalog

EVENTS = ("ping", *catalog.NAMES)

# Delay before attempt n+1 after attempt n failed (Standard Webhooks' schedule, stretched to ~3 days):
# 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h six times = 67 h 35 min after the first attempt, 12 attempts.
RETRY_SCHEDULE = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    *[timedelta(hours=10)] * 6,
)
MAX_ATTEMPTS = len(RETRY_SCHEDULE) + 1
JITTER = 0.20  # ±20%, so endpoints that failed together are not retried in lockstep

# A row `sending` for longer than this lost its worker (an attempt takes at most the 10 s timeout plus a
# few database writes); the sweep puts it back to pending. Far above the timeout, so a slow but alive
# worker is never swept.
STALE_SENDING_AFTER = timedelta(minutes=2)
# Retries due sooner than this are also enqueued with a countdown (fast first retry); later ones are
# picked up by the beat task `webhooks_dispatch_due` only. Countdown messages must stay well below the
# Redis transport's visibility_timeout (1 h by default), or Redis hands the unacked message to a second
# worker while the first still holds it.
COUNTDOWN_MAX = timedelta(minutes=1)
# Rows recorded or retried within this window already have their own message in the queue.
DISPATCH_GRACE = timedelta(seconds=15)
DISPATCH_BATCH = 500

RESPONSE_EXCERPT_BYTES = 2000  # Attempt.response_excerpt holds 2000 characters
DEFAULT_TIMEOUT_SECONDS = 10.0


class Outcome:
    SUCCEEDED = "succeeded"
    GONE = "gone"  # 410: disable the endpoint
    RETRY = "retry"


def timeout_seconds() -> float:
    """Total time allowed for one attempt (connect, send, answer); tests lower it."""
    return float(getattr(settings, "WEBHOOK_TIMEOUT_SECONDS", DEFAULT_TIMEOUT_SECONDS))


def attempt_outcome(status_code: int | None) -> str:
    """What an attempt's HTTP status means; None (no answer: refused, timeout, blocked) is a failure."""
    if status_code is not None and 200 <= status_code < 300:
        return Outcome.SUCCEEDED
    if status_code == 410:
        return Outcome.GONE
    return Outcome.RETRY


def retry_delay(*, attempt_count: int, rand=random.random) -> timedelta | None:
    """Wait before the next attempt after `attempt_count` failed ones; None: give up (failed)."""
    if attempt_count < 1 or attempt_count > len(RETRY_SCHEDULE):
        return None
    base = RETRY_SCHEDULE[attempt_count - 1]
    return base * (1 + JITTER * (2 * rand() - 1))


def endpoint_send_blockers(application) -> list[str]:
    """Why nothing may be sent to the app's endpoint now; empty when it may."""
    if not application.webhook_url:
        return ["The application has no webhook URL."]
    if application.webhook_disabled_at is not None:
        reason = application.webhook_disabled_reason or "it answered 410 Gone"
        return [f"The webhook endpoint is disabled ({reason}); save the webhook URL again to re-enable it."]
    return []


def delivery_redeliver_blockers(delivery) -> list[str]:
    """Why the owner cannot send this delivery again now; empty when they can."""
    if delivery.status == delivery.Status.SENDING:
        return ["This delivery is being sent right now."]
    return endpoint_send_blockers(delivery.application)


def events_chosen(selection_events: list | None) -> frozenset[str]:
    """The events an app receives: what it chose, or the catalog's defaults (order events) when it never
    chose (no EventSelection row). Unknown names (an event since removed) are ignored."""
    if selection_events is None:
        return catalog.DEFAULT_EVENTS
    return frozenset(name for name in selection_events if name in catalog.BY_NAME)


def event_selection_errors(events) -> list[str]:
    """Why a selection cannot be saved; empty when it can."""
    unknown = sorted(set(events) - set(catalog.NAMES))
    return [f"Unknown event: {name}." for name in unknown]
