"""tests/support/flush.py: a transactional test leaves the database as the session set it up."""
import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from apps.accounts.tests.factories import UserFactory
from apps.comments.tests.factories import CommentFactory
from apps.oauth.tests.factories import AccessTokenFactory
from apps.things.models import Category
from apps.things.tests.factories import ThingFactory
from tests.support import flush

pytestmark = pytest.mark.django_db(transaction=True)


def _rows(table: str) -> set[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
        return set(cursor.fetchall())


def _fresh_state_asserted() -> None:
    kept, seeded = flush._fresh["default"]
    assert seeded, "the category tree is a seeded table"
    for table in flush._tables(connection):
        if table in seeded:
            assert _rows(table) == _rows(flush.SNAPSHOT_PREFIX + table), table
        else:
            assert not _rows(table), f"{table} still holds rows"
    with connection.cursor() as cursor:
        assert flush._kept_counts(connection, cursor) == kept


def _write_everywhere():
    user = UserFactory()
    thing = ThingFactory(creator=user, tags=["flushed", "twice"], category=Category.objects.get(slug="other"))
    CommentFactory(thing=thing, user=user)
    AccessTokenFactory(user=user)
    Category.objects.filter(slug="other").update(name="Renamed by a test")


def test_the_fast_flush_leaves_the_fresh_rows_seeded_ids_and_counts_included():
    _write_everywhere()
    assert flush.flush("default") is True
    _fresh_state_asserted()


def test_a_changed_content_type_takes_djangos_flush_and_the_seeded_rows_come_back():
    _write_everywhere()
    ContentType.objects.create(app_label="gone", model="model")
    assert flush.flush("default") is False  # nothing touched: Django's flush follows
    assert _rows("things_thing")

    class Case:  # what fixture_teardown reads of a TransactionTestCase
        available_apps = None
        serialized_rollback = False

        @staticmethod
        def _databases_names(include_mirrors=True):
            return ["default"]

    flush.fixture_teardown(Case())
    assert not _rows("things_thing") and not _rows("accounts_user")
    assert ContentType.objects.filter(app_label="gone").count() == 0  # post_migrate made the real ones again
    kept, seeded = flush._fresh["default"]
    for table in seeded:
        assert _rows(table) == _rows(flush.SNAPSHOT_PREFIX + table), table
    flush.remember("default")  # the content types' new count is the fresh one for the later tests
