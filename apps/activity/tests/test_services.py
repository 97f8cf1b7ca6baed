"""Recording events (moved here from the accounts tests with the Event model)."""
import pytest

from apps.activity import services
from apps.activity.models import Event

pytestmark = pytest.mark.django_db


def test_event_record_skips_ones_own_actions(user, other_user):
    assert services.event_record(recipient=user, actor=user, kind="like") is None
    event = services.event_record(
        recipient=user, actor=other_user, kind="like", target_type="thing", target_id=7
    )
    assert Event.objects.get() == event
