"""Retry schedule and outcomes (docs/decisions.md: Webhooks: ~3 days of exponential backoff with jitter)."""
from datetime import timedelta

import pytest

from apps.webhooks import rules


def test_the_schedule_retries_for_about_three_days():
    total = sum(rules.RETRY_SCHEDULE, timedelta())
    assert timedelta(days=2.5) <= total <= timedelta(days=3.2)
    assert list(rules.RETRY_SCHEDULE) == sorted(rules.RETRY_SCHEDULE)  # backoff never shortens


@pytest.mark.parametrize("rand,factor", [(0.0, 0.8), (0.5, 1.0), (1.0, 1.2)])
def test_the_delay_has_twenty_percent_jitter(rand, factor):
    assert rules.retry_delay(attempt_count=2, rand=lambda: rand) == timedelta(minutes=5) * factor


def test_after_the_last_attempt_there_is_no_retry():
    assert rules.retry_delay(attempt_count=rules.MAX_ATTEMPTS - 1) is not None
    assert rules.retry_delay(attempt_count=rules.MAX_ATTEMPTS) is None


@pytest.mark.parametrize(
    "status,outcome",
    [(200, "succeeded"), (204, "succeeded"), (299, "succeeded"), (410, "gone"), (301, "retry"), (404, "retry"),
     (500, "retry"), (None, "retry")],
)
def test_any_2xx_succeeds_410_disables_and_everything_else_retries(status, outcome):
    assert rules.attempt_outcome(status) == outcome
