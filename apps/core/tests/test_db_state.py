"""The access matrices' proof that a refused request changed nothing (tests.support.api.db_state)."""
import pytest
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from tests.support.api import db_state
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def test_a_changed_row_a_new_row_and_a_deleted_row_each_change_their_tables_digest():
    thing = ThingFactory()
    before = db_state()
    assert before == db_state()
    thing.name = thing.name + " changed"
    thing.save(update_fields=["name"])
    changed = db_state()
    assert [label for label in before if before[label] != changed[label]] == ["things.Thing"]
    UserFactory()
    added = db_state()
    assert "accounts.User" in [label for label in changed if changed[label] != added[label]]
    thing.delete()
    assert db_state()["things.Thing"] != added["things.Thing"]


def test_the_callers_activity_stamp_is_not_a_change():
    user = UserFactory()
    before = db_state()
    type(user).objects.filter(pk=user.pk).update(last_active=timezone.now())
    assert db_state()["accounts.User"] == before["accounts.User"]
