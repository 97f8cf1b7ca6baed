"""GET /users/{username}/event-count?timestamp=YYYY-MM-DDThh:mm:ssTZD (spec §4.1)."""

from datetime import UTC, datetime, timedelta

import pytest

from apps.activity.models import Event
from apps.activity.tests.factories import EventFactory
from tests.support.api import assert_error

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _events_at(user, *moments):
    for moment in moments:
        event = EventFactory(recipient=user)
        Event.objects.filter(pk=event.pk).update(created=moment)  # auto_now_add ignores a given value


def test_it_counts_events_after_the_timestamp(api, user, other_user):
    _events_at(user, T0 - timedelta(hours=1), T0 + timedelta(seconds=1), T0 + timedelta(days=1))
    _events_at(other_user, T0 + timedelta(hours=1))
    response = api.get("/users/me/event-count", {"timestamp": "2026-11-20T12:00:00Z"})
    assert response.status_code == 200
    assert response.json() == {"count": 2}


@pytest.mark.parametrize(
    "timestamp,expected",
    [
        ("2026-11-20T12:00:00+00:00", 2),
        ("2026-11-20T13:00:00+01:00", 2),  # the same instant in another offset
        ("2026-11-20T12:00:00 01:00", 3),  # `+` decoded as a space: 11:00 UTC
        ("2026-11-20T07:00:00-05:00", 2),
        ("2026-11-20T12:00:00", 2),  # naive means UTC (spec: "UTC")
    ],
)
def test_it_accepts_the_spec_offsets(api, user, timestamp, expected):
    _events_at(user, T0 - timedelta(minutes=30), T0 + timedelta(seconds=1), T0 + timedelta(days=1))
    assert api.get(f"/users/{user.username}/event-count", {"timestamp": timestamp}).json() == {
        "count": expected
    }


def test_a_raw_plus_in_the_query_string_works(api, user):
    _events_at(user, T0 - timedelta(minutes=30), T0 + timedelta(seconds=1))
    # An unencoded `+` arrives as a space; an encoded one as `+`.
    assert api.get("/users/me/event-count?timestamp=2026-11-20T12:00:00+01:00").json() == {"count": 2}
    assert api.get("/users/me/event-count?timestamp=2026-11-20T12:00:00%2B01:00").json() == {"count": 2}


def test_without_a_timestamp_it_counts_all_events(api, user):
    _events_at(user, T0, T0 + timedelta(days=1))
    assert api.get("/users/me/event-count").json() == {"count": 2}
    # An empty value reads as absent, as DRF reads any empty query parameter.
    assert api.get("/users/me/event-count?timestamp=").json() == {"count": 2}


@pytest.mark.parametrize(
    "timestamp",
    ["yesterday", "2026-13-01T00:00:00Z", "2026-11-20", "1700000000", "2026-11-20T12:00:00+25:00"],
)
def test_a_malformed_timestamp_is_400(api, timestamp):
    body = assert_error(api.get("/users/me/event-count", {"timestamp": timestamp}), 400, "VALIDATION_FAILED")
    assert list(body["errors"]) == ["timestamp"]


@pytest.mark.parametrize("events", [1, 30])
def test_query_count_does_not_grow_with_events(api, user, events, django_assert_num_queries):
    _events_at(user, *[T0 + timedelta(minutes=i) for i in range(events)])
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    with django_assert_num_queries(2):  # the token with its user and application; COUNT of events
        response = api.get("/users/me/event-count", {"timestamp": "2026-11-20T00:00:00Z"})
    assert response.json() == {"count": events}
