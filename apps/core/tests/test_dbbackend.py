"""apps.core.db.postgresql: a persistent connection the server dropped is replaced by the first statement of
the next request instead of a `SELECT 1` before every request (issue 17)."""
from contextlib import contextmanager

import psycopg
import pytest
from django.db import OperationalError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from apps.core.db.postgresql.base import DatabaseWrapper
from tests.support.signals import raised_after

pytestmark = pytest.mark.django_db(transaction=True)


def _carried_over() -> bool:
    wrapper = connections["default"]
    assert isinstance(wrapper, DatabaseWrapper)  # the test settings' ENGINE: apps.core.db.postgresql
    return wrapper.carried_over


def _server_drops_connection() -> None:
    """What a PostgreSQL restart does to an open connection, done to this one alone."""
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    url = f"host={params.get('host') or '127.0.0.1'} port={params.get('port') or 5432} " \
          f"user={params['user']} dbname={params['dbname']}"
    with psycopg.connect(url, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))


def _request_boundary() -> None:
    """What Django does between two requests with persistent connections (request_started/finished)."""
    connection.close_at = None  # CONN_MAX_AGE as in production: the connection is kept
    connection.close_if_unusable_or_obsolete()


def _select_one() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone()[0]


def test_the_engine_is_the_recovering_backend_without_health_checks():
    assert connection.settings_dict["ENGINE"] == "apps.core.db.postgresql"


def test_a_dropped_connection_is_replaced_by_the_next_requests_first_statement():
    connection.ensure_connection()
    _request_boundary()
    assert _carried_over()
    old = connection.connection
    _server_drops_connection()
    assert _select_one() == 1  # no error reaches the request
    assert connection.connection is not old
    assert not _carried_over()
    assert not connection.errors_occurred


def test_no_select_1_is_sent_before_a_requests_first_statement():
    connection.ensure_connection()
    _request_boundary()
    with CaptureQueriesContext(connection) as queries:
        _select_one()
    assert [q["sql"] for q in queries.captured_queries] == ["SELECT 1"]  # the statement itself, once


def test_a_connection_lost_in_the_middle_of_a_request_raises():
    connection.ensure_connection()
    _request_boundary()
    _select_one()  # the request's first statement went through: the connection was alive
    _server_drops_connection()
    with pytest.raises(OperationalError):
        _select_one()
    connection.close()


def test_a_connection_lost_inside_a_transaction_raises():
    connection.ensure_connection()
    _request_boundary()
    _server_drops_connection()
    with pytest.raises(OperationalError):
        with transaction.atomic():
            _select_one()
    connection.close()



# --- prepared statements (issue 24, first reads) ---------------------------------------------------


def _prepared_on_server() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def _prepared_select(value: int) -> int:
    from apps.core.db import statement_cursor

    with statement_cursor() as cursor:
        cursor.execute("SELECT %s::int + 0 AS thingyard_prepared_probe", [value])
        return cursor.fetchone()[0]


def test_a_fixed_statement_is_prepared_once_per_connection_and_run_with_each_calls_values():
    assert [_prepared_select(n) for n in (1, 2, 3)] == [1, 2, 3]
    probes = [s for s in _prepared_on_server() if "thingyard_prepared_probe" in s]
    assert len(probes) == 1  # parsed and planned once, executed by name after that


def test_ordinary_statements_are_not_prepared():
    for _ in range(10):
        _select_one()
    assert not [s for s in _prepared_on_server() if s.strip() == "SELECT 1"]


def test_a_prepared_statement_is_logged_with_its_values():
    with CaptureQueriesContext(connection) as queries:
        _prepared_select(41)
    assert "41" in queries.captured_queries[-1]["sql"]


def test_a_prepared_statement_survives_the_server_dropping_the_connection():
    connection.ensure_connection()
    _prepared_select(1)
    _request_boundary()
    _server_drops_connection()
    assert _prepared_select(7) == 7  # the reconnect above, with a prepared cursor again
    assert [s for s in _prepared_on_server() if "thingyard_prepared_probe" in s]


def test_a_pooler_setting_turns_preparing_off():
    wrapper = connections["default"]
    options = wrapper.settings_dict["OPTIONS"]
    options["prepare_threshold"] = None
    try:
        assert wrapper.get_connection_params()["prepare_threshold"] is None
    finally:
        del options["prepare_threshold"]
    assert wrapper.get_connection_params()["prepare_threshold"] > 10**6


# --- timestamptz values (issue 24, first reads) ------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "2026-11-28 16:09:21.123456+00",
    "2026-06-01 12:00:00+02",  # another offset: the session's UTC value
    "1899-12-31 23:59:59.5-03:30",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
])
def test_timestamptz_values_load_as_djangos_own_loader_loads_them(text):
    """The native loader (UtcTimestamptzLoader) answers what Django's Python one would: the same instant,
    the same tzinfo object (datetime.timezone.utc), for any offset the server was given."""
    import datetime

    from django.db.backends.postgresql.psycopg_any import BaseTzLoader

    from apps.core.db.postgresql.base import UtcTimestamptzLoader

    connection.ensure_connection()
    assert connection.connection.adapters.get_loader(1184, psycopg.pq.Format.TEXT) is UtcTimestamptzLoader
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::timestamptz, %s::timestamptz::text", [text, text])
        loaded, as_text = cursor.fetchone()

    class Djangos(BaseTzLoader):
        timezone = datetime.timezone.utc

    expected = Djangos(1184, connection.connection).load(as_text.encode())
    assert loaded == expected
    assert loaded.tzinfo is expected.tzinfo is datetime.timezone.utc
    assert (loaded.year, loaded.microsecond) == (expected.year, expected.microsecond)


def test_the_orm_reads_timestamps_through_the_native_loader():
    import datetime

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    user = get_user_model().objects.create_user(username="ts-reader", password="x" * 12)
    user.refresh_from_db()
    assert user.date_joined.tzinfo is datetime.timezone.utc
    assert abs((timezone.now() - user.date_joined).total_seconds()) < 60


def test_a_long_fixed_statement_is_converted_once_and_runs_with_each_calls_values():
    """psycopg keeps the `%s` → `$n` conversion only for statements up to 4 KB; a prepared (fixed) statement
    keeps it whatever its length (apps.core.db.postgresql.base._FixedTextQuery)."""
    from apps.core.db import statement_cursor
    from apps.core.db.postgresql.base import _fixed_text_converted

    padding = " + ".join(["0"] * 2500)  # a statement of about 10 KB
    sql = f"SELECT %s::int + {padding}, %s::text, 7 %% 4"
    assert len(sql) > 4096
    before = _fixed_text_converted.cache_info()
    for value in (1, 2, 3):
        with statement_cursor() as cursor:
            cursor.execute(sql, [value, "50%"])
            assert cursor.fetchone() == (value, "50%", 3)
    after = _fixed_text_converted.cache_info()
    assert after.misses - before.misses == 1 and after.hits - before.hits == 2


# --- the connection's kept cursor (KeptPreparedCursor) ----------------------------------------------


def _psycopg_cursor(wrapper):
    return wrapper.cursor  # Django's CursorWrapper around psycopg's cursor


def test_fixed_statements_share_the_connections_cursor_and_each_reads_its_own_rows():
    from apps.core.db import statement_cursor

    seen = []
    for value in (1, 2, 3):
        with statement_cursor() as cursor:
            seen.append(_psycopg_cursor(cursor))
            cursor.execute("SELECT g FROM generate_series(1, %s::int) AS g", [value])
            assert [row[0] for row in cursor.fetchall()] == list(range(1, value + 1))
    assert seen[0] is seen[1] is seen[2]
    assert not seen[0].closed  # handed back open, its results dropped
    assert seen[0].pgresult is None


def test_a_statement_run_while_the_kept_cursor_is_out_gets_a_cursor_of_its_own():
    from apps.core.db import statement_cursor

    with statement_cursor() as outer:
        outer.execute("SELECT g FROM generate_series(1, 3) AS g")
        with statement_cursor() as inner:
            assert _psycopg_cursor(inner) is not _psycopg_cursor(outer)
            inner.execute("SELECT %s::int * 10", [4])
            assert inner.fetchone() == (40,)
        assert _psycopg_cursor(inner).closed  # the extra one is closed as any cursor is
        assert [row[0] for row in outer.fetchall()] == [1, 2, 3]  # the outer rows were not lost
    with statement_cursor() as again:
        assert _psycopg_cursor(again) is _psycopg_cursor(outer)


def test_a_failed_statement_leaves_the_kept_cursor_usable():
    from apps.core.db import statement_cursor
    from django.db import DataError

    with pytest.raises(DataError):
        with statement_cursor() as cursor:
            cursor.execute("SELECT 1 / %s::int", [0])
    assert _prepared_select(5) == 5


def test_a_new_connection_gets_a_new_kept_cursor():
    from apps.core.db import statement_cursor

    with statement_cursor() as cursor:
        first = _psycopg_cursor(cursor)
    connection.close()
    assert _prepared_select(8) == 8
    with statement_cursor() as cursor:
        assert _psycopg_cursor(cursor) is not first
        assert _psycopg_cursor(cursor).connection is connection.connection


def test_the_kept_cursor_keeps_psycopgs_loaders_for_a_statement_text_run_again():
    """What KeptPreparedCursor relies on: psycopg makes a statement's column loaders again only when the
    text object it runs changes (windowed_sql, _viewer_text and _TokenJoin._joined_text hand out one
    object per statement)."""
    from apps.core.db import statement_cursor

    text = "SELECT %s::int AS thingyard_kept_probe, now()"
    transformers = []
    for value in (1, 2):
        with statement_cursor() as cursor:
            cursor.execute(text, [value])
            assert cursor.fetchone()[0] == value
            transformers.append(_psycopg_cursor(cursor)._tx)
    assert transformers[0] is transformers[1]


class _Interrupt(Exception):
    """What a signal handler raises in the middle of a statement (Celery's soft time limit, say)."""


@contextmanager
def _interrupted_after(seconds: float):
    """_Interrupt raised from a timer signal `seconds` into the block, wherever it is then."""
    with pytest.raises(_Interrupt), raised_after(seconds, _Interrupt):
        yield


def _interrupted_statement(seconds: float = 0.2) -> None:
    with _interrupted_after(seconds):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(5)")


def test_a_statement_interrupted_by_a_signal_drops_its_connection_and_the_next_statement_runs():
    connection.ensure_connection()
    old = connection.connection
    _interrupted_statement()
    # psycopg stopped waiting with the answer unread; that connection would refuse every statement.
    assert old.closed
    assert _select_one() == 1
    assert connection.connection is not old


def test_a_statement_interrupted_inside_a_transaction_leaves_the_next_transaction_working():
    with pytest.raises(_Interrupt):
        with transaction.atomic():
            _select_one()
            _interrupted_statement()
            raise _Interrupt()  # the run goes on unwinding, as it does after the limit
    assert not connection.in_atomic_block
    with transaction.atomic():
        assert _select_one() == 1


def test_an_exception_after_a_statement_finished_keeps_the_connection():
    connection.ensure_connection()
    old = connection.connection
    with pytest.raises(_Interrupt):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            raise _Interrupt()
    assert connection.connection is old and not old.closed


def test_a_commit_interrupted_by_a_signal_drops_its_connection_and_the_next_statement_runs():
    # A COMMIT that waits on the server: a deferred constraint trigger that sleeps (temporary objects,
    # gone with the connection).
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE slow_commit (id int)")
        cursor.execute("CREATE FUNCTION pg_temp.sleep_at_commit() RETURNS trigger LANGUAGE plpgsql AS "
                       "$$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$")
        cursor.execute("CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON slow_commit DEFERRABLE INITIALLY DEFERRED "
                       "FOR EACH ROW EXECUTE FUNCTION pg_temp.sleep_at_commit()")
    old = connection.connection
    with _interrupted_after(0.3):
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("INSERT INTO slow_commit VALUES (1)")
    assert old.closed
    assert not connection.in_atomic_block
    assert _select_one() == 1
    assert connection.connection is not old
