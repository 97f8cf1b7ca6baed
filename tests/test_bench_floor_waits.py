"""bench.views.floor_waits: the floor plus exactly the two waits every API read makes, one count in Redis
and one statement in PostgreSQL, and nothing else (issue 24: the ceiling the bench reports)."""
import pytest
from django.test import RequestFactory

from apps.core.pipeline.ratelimit import _redis_client, rate_limit_window  # the limiter's own client
from apps.things.tests.factories import ThingFactory
from bench.views import FLOOR_WAITS_BUCKET, floor, floor_waits


def _count(client, key: str) -> int:
    value = client.get(key)
    return int(value) if value is not None else 0


@pytest.mark.django_db
def test_the_floor_with_waits_counts_once_reads_once_and_answers_the_floors_body(
    settings, django_assert_num_queries
):
    thing = ThingFactory()
    request = RequestFactory().get(f"/bench/floor-waits/{thing.pk}/")
    window_key, _ = rate_limit_window(FLOOR_WAITS_BUCKET)
    client = _redis_client(settings.REDIS_URL)
    before = _count(client, window_key)
    with django_assert_num_queries(1):
        response = floor_waits(request, thing.pk)
    assert _count(client, window_key) == before + 1
    assert response.status_code == 200
    assert response.content == floor(RequestFactory().get("/bench/floor/")).content
