"""A transactional test's flush, made cheap (CI time on a slow machine), leaving the fresh database's rows.

Django empties the database after each transactional test (TransactionTestCase, which pytest-django uses
for `transactional_db` and `live_server`) with `manage.py flush`: one TRUNCATE of every table, then the
post_migrate signal, which creates the content types and permissions again. The rows migrations seed (the
category tree) were gone until the root conftest seeded the tree again. On a 2-core CI machine that cost
0.65 s a test, most of it PostgreSQL giving every table and index new files (TRUNCATE does that even for
an empty table), the signal's queries, and the tree's 79 get_or_create.

`fixture_teardown` here leaves what the test database held when the session set it up:
- every table holding a row is emptied with DELETE, which costs nothing for an empty table;
- the content types and permissions, which only migrations and post_migrate write, are left as they are
  (so they keep their ids, as in the template every worker copied) while their counts are the fresh
  database's;
- the tables migrations seed (`remember` copies their rows, server-side, when the session sets the
  database up) get those rows back, ids included, in one INSERT each.

Django's own flush (and then the seeded rows back) stays for any other case:
- a test case that flushes part of the apps or restores serialized data (available_apps,
  serialized_rollback);
- the content types or permissions changed (a count other than the fresh database's);
- a role that may not turn off triggers (SET session_replication_role needs a superuser).

The DELETEs and INSERTs run with the triggers off (`session_replication_role = replica`): the foreign
keys' checks and the catalogue's count triggers would otherwise run for every row, in an order that
cannot matter, as every table ends as it began.
"""
from __future__ import annotations

from django.db import connections, transaction
from django.test import TransactionTestCase

KEPT = ("django_content_type", "auth_permission")
SNAPSHOT_PREFIX = "test_flush_seeded_"
# Django's own teardown, taken before the root conftest puts `fixture_teardown` in its place
_django_fixture_teardown = TransactionTestCase._fixture_teardown  # type: ignore[attr-defined]
# per database: the kept tables' counts, and the seeded tables (copied to SNAPSHOT_PREFIX + name)
_fresh: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {}


def _quote(connection, name: str) -> str:
    return connection.ops.quote_name(name)


def _tables(connection) -> list[str]:
    return [t for t in connection.introspection.django_table_names(only_existing=True, include_views=False)
            if t not in KEPT]


def _filled(connection, cursor, tables: list[str]) -> list[str]:
    """The tables of `tables` holding at least one row (one statement)."""
    probe = " UNION ALL ".join(f"SELECT %s WHERE EXISTS (SELECT 1 FROM {_quote(connection, t)})" for t in tables)
    cursor.execute(probe, tables)
    return [row[0] for row in cursor.fetchall()]


def _kept_counts(connection, cursor) -> tuple[int, ...]:
    cursor.execute("SELECT " + ", ".join(f"(SELECT count(*) FROM {_quote(connection, t)})" for t in KEPT))
    return tuple(cursor.fetchone())


def remember(db_name: str) -> None:
    """Note the fresh test database's kept counts and copy its seeded tables' rows (the session's setup
    calls this once the database is migrated)."""
    connection = connections[db_name]
    if connection.vendor != "postgresql":
        return
    with transaction.atomic(using=db_name), connection.cursor() as cursor:
        seeded = _filled(connection, cursor, _tables(connection))
        for table in seeded:
            snapshot = _quote(connection, SNAPSHOT_PREFIX + table)
            cursor.execute(f"DROP TABLE IF EXISTS {snapshot}")
            cursor.execute(f"CREATE UNLOGGED TABLE {snapshot} AS SELECT * FROM {_quote(connection, table)}")
        _fresh[db_name] = (_kept_counts(connection, cursor), tuple(seeded))


def _restore_seeded(connection, cursor, seeded: tuple[str, ...]) -> None:
    cursor.execute("; ".join(
        f"INSERT INTO {_quote(connection, t)} SELECT * FROM {_quote(connection, SNAPSHOT_PREFIX + t)}" for t in seeded
    ))


def flush(db_name: str) -> bool:
    """Bring `db_name` back to its fresh rows; False when this way does not apply (the module's docstring)
    and nothing was changed."""
    connection = connections[db_name]
    fresh = _fresh.get(db_name)
    if connection.vendor != "postgresql" or fresh is None:
        return False
    kept, seeded = fresh
    with transaction.atomic(using=db_name), connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        if not cursor.fetchone()[0] or _kept_counts(connection, cursor) != kept:
            return False
        filled = _filled(connection, cursor, _tables(connection))
        cursor.execute("SET LOCAL session_replication_role = replica")
        if filled:
            cursor.execute("; ".join(f"DELETE FROM {_quote(connection, t)}" for t in filled))
        if seeded:
            _restore_seeded(connection, cursor, seeded)
    return True


def fixture_teardown(test_case) -> None:
    """TransactionTestCase._fixture_teardown, by `flush` above where it applies (the module's docstring),
    else Django's own (kept in `_django_fixture_teardown`) and then the seeded rows back."""
    partial = test_case.available_apps is not None or test_case.serialized_rollback
    names = test_case._databases_names(include_mirrors=False)
    if not partial and all(flush(db_name) for db_name in names):
        return
    _django_fixture_teardown(test_case)
    if partial:
        return
    for db_name in names:
        fresh = _fresh.get(db_name)
        if fresh and fresh[1]:
            connection = connections[db_name]
            with transaction.atomic(using=db_name), connection.cursor() as cursor:
                _restore_seeded(connection, cursor, fresh[1])
