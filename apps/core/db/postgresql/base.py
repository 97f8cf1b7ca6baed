"""Django's PostgreSQL backend, recovering from a dead persistent connection instead of testing each one.

Production keeps connections open between requests (CONN_MAX_AGE). Django's CONN_HEALTH_CHECKS would
send a `SELECT 1` before the first query of every request to find out whether the server still has the
connection: a round trip per request (3–3.5 % of a detail request, issue 17) for an event that happens
when PostgreSQL restarts or fails over. This backend skips the check and handles the failure where it
happens: when the first statement on a connection carried over from an earlier request fails because
the connection is gone (psycopg reports it closed or broken), and no transaction is open, the connection
is replaced and the statement sent again, once. A statement that fails on a live connection, a
connection lost in the middle of a request, or inside a transaction, raises as before (the API answers
503, apps.core.pipeline.handlers), and Django closes the connection at the end of that request.

Settings: `ENGINE: "apps.core.db.postgresql"`, CONN_HEALTH_CHECKS off (config/settings/production.py).

Prepared statements (issue 24, first reads). Django binds parameters on the client: every statement
reaches PostgreSQL as new text with its values written in, and is planned again. The hot read statements
(a Thing's, a token's, a list's ids, the versions the caches check) are the same text on every request,
and planning the Thing detail statement cost 1.5 ms of server CPU against 0.36 ms to run it. Those
statements go through `prepared_cursor()` instead (apps.core.db.statement_cursor): server-side binding,
prepared on the connection the first time and executed by name after that (psycopg keeps the last
`prepared_max` per connection). Everything else keeps Django's client-side binding, so the ORM's
statements that cannot be prepared (parameters in GROUP BY, …) are unaffected. A connection pooler in
transaction mode (PgBouncer before 1.21) would need `max_prepared_statements`: docs/decisions.md.
"""
import datetime
import logging
from functools import lru_cache
from typing import TYPE_CHECKING

import psycopg
from django.db import InterfaceError, OperationalError
from django.db.backends.postgresql import base, operations
from psycopg import _queries
from psycopg.adapt import AdaptersMap, Loader
from psycopg.pq import Format
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

log = logging.getLogger(__name__)


if TYPE_CHECKING:
    _CursorBase = CursorWrapper  # what the mixin is mixed into: db, cursor
else:
    _CursorBase = object


class _Retrying(_CursorBase):
    """The part of Django's cursor wrapper that sends a statement: replaces a dead carried-over
    connection once, outside transactions, and drops a connection whose statement was interrupted."""

    def _executemany(self, sql, param_list, *ignored_wrapper_args):
        try:
            # CursorWrapper._executemany: Django's private method, not declared by django-stubs.
            return super()._executemany(sql, param_list, *ignored_wrapper_args)  # type: ignore[misc]
        except BaseException as exc:
            self.db.close_if_interrupted(exc)
            raise

    def _execute(self, sql, params, *ignored_wrapper_args):
        db = self.db
        try:
            # CursorWrapper._execute: Django's private method, not declared by django-stubs.
            result = super()._execute(sql, params, *ignored_wrapper_args)  # type: ignore[misc]
        except (OperationalError, InterfaceError):
            if not (db.carried_over and not db.in_atomic_block and db.connection_is_dead()):
                db.carried_over = False
                raise
            log.warning("The database connection was gone (server restarted?); reconnecting once")
            db.close()
            db.ensure_connection()
            prepared = isinstance(self.cursor, PreparedCursor)
            # PreparedCursor(connection): psycopg's Cursor constructor, which django-stubs do not describe.
            self.cursor = PreparedCursor(db.connection) if prepared else db.create_cursor()  # type: ignore[call-arg]
            result = super()._execute(sql, params, *ignored_wrapper_args)  # type: ignore[misc]
        except BaseException as exc:
            db.close_if_interrupted(exc)
            raise
        db.carried_over = False
        return result


class _FixedTextQuery(_queries.PostgresQuery):
    """psycopg's conversion of a statement's `%s` placeholders to `$n`, kept for statements of any length.

    psycopg keeps the conversion (an LRU of 128) only for statements up to 4 KB, so that ORM statements of
    varying text do not fill it; a longer one is parsed again on every execution. A PreparedCursor's
    statements are fixed text by definition, and one of them is longer than that: the token's row joined
    with a Thing's detail statement (apps.core.db.compiled.ReadWithToken), parsed on each first read. Their
    conversion is kept in an LRU of its own."""

    def convert(self, query, vars) -> None:
        if vars is None or not isinstance(query, str):
            return super().convert(query, vars)
        self.query, self._want_formats, self._order, self._parts = _fixed_text_converted(
            query, self._tx.encoding
        )
        self.dump(vars)


@lru_cache(maxsize=256)
def _fixed_text_converted(query: str, encoding: str):
    return _queries._query2pg_nocache(query.encode(encoding), encoding)


class PreparedCursor(base.ServerBindingCursor):
    """A server-side binding cursor whose statements are prepared on their first execution."""

    _query_cls = _FixedTextQuery

    def execute(self, query, params=None, *, prepare=None, binary=None):  # type: ignore[override]
        # psycopg.Cursor.execute (django-stubs type base.ServerBindingCursor without psycopg's methods)
        return super().execute(query, params, prepare=True if prepare is None else prepare,  # type: ignore[misc]
                               binary=binary)


class KeptPreparedCursor(PreparedCursor):
    """The PreparedCursor a connection keeps and lends out again (DatabaseWrapper.prepared_cursor).

    A new psycopg cursor copies the connection's adapters and starts a new transformer, and the first
    result it reads makes a loader per column type and looks each column's up again: for the token's row
    joined with a Thing (about 110 columns) that was a fifth of the client's cost of the statement (issue
    24, first reads). A cursor that is kept keeps its transformer and its loaders, so only the values are
    read. `close()` hands it back with its results dropped; it is closed for good with its connection."""

    lent = False

    def close(self) -> None:
        # psycopg's Cursor methods, which django-stubs do not describe (they type ServerBindingCursor bare).
        if self.lent:
            self.lent = False
            self._reset(reset_query=False)  # type: ignore[attr-defined]  # what closing drops; kept open
            return
        super().close()  # type: ignore[misc]


class RetryingCursorWrapper(_Retrying, CursorWrapper):
    pass


class RetryingCursorDebugWrapper(_Retrying, CursorDebugWrapper):
    pass


_NEVER_BY_COUNT = 2**31 - 1


class UtcTimestamptzLoader(Loader):
    """`timestamptz` values as aware datetimes in UTC, by psycopg's own loader (C in psycopg[binary]).

    Django registers a loader of its own (psycopg_any.BaseTzLoader) that parses the text in Python and
    replaces the result's tzinfo with the connection's zone: 6.3 µs a value against 0.4 µs (issue 24, first
    reads: a page of 30 short Things loads 30-odd of them). Where Django's zone is UTC, the session's
    TimeZone is UTC too (Django sets it on connecting), and psycopg's loader then returns the same value
    with the same tzinfo (`datetime.timezone.utc`). `timezone` is what Django's create_cursor() compares,
    so no cursor registers Django's loader again. Used only when Django's connection zone is UTC
    (DatabaseWrapper.get_connection_params)."""

    format = Format.TEXT
    timezone = datetime.timezone.utc

    def __init__(self, oid, context=None):
        super().__init__(oid, context)
        # psycopg's transformer calls `load` of each loader it makes: the native loader's, directly.
        self.load = _NATIVE_TIMESTAMPTZ(oid, context).load  # type: ignore[method-assign]

    def load(self, data):  # replaced per instance above; here for the Loader protocol
        raise NotImplementedError


_NATIVE_TIMESTAMPTZ: type[Loader] = psycopg.adapters.get_loader(  # type: ignore[assignment]  # registered by psycopg
    psycopg.adapters.types["timestamptz"].oid, Format.TEXT
)


@lru_cache
def _utc_adapters(django_template: AdaptersMap) -> AdaptersMap:
    adapters = AdaptersMap(django_template)
    adapters.register_loader("timestamptz", UtcTimestamptzLoader)
    return adapters


class DatabaseOperations(operations.DatabaseOperations):
    def last_executed_query(self, cursor, sql, params):
        # A prepared statement is sent as its name and values: the logged text (connection.queries,
        # assertNumQueries' listing) is the statement with its values written in, as Django's own.
        if isinstance(cursor, PreparedCursor):
            try:
                return self.compose_sql(sql, params)
            except Exception:  # a value the client cannot quote: the text without values
                return sql
        return super().last_executed_query(cursor, sql, params)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    # Set when a request (or a Celery task) starts with a connection opened before it: its first
    # statement is the one that may find the server gone.
    carried_over = False
    _kept_cursor: KeptPreparedCursor | None = None  # prepared_cursor(): belongs to `connection`

    def connect(self):
        super().connect()
        self.carried_over = False

    def get_connection_params(self):
        params = super().get_connection_params()
        if "prepare_threshold" not in self.settings_dict["OPTIONS"]:
            # Django's default (None) disables preparing altogether, `prepare=True` included. A threshold
            # no statement reaches prepares only what prepared_cursor() runs; OPTIONS' own value (None:
            # a pooler that cannot keep prepared statements) wins.
            params["prepare_threshold"] = _NEVER_BY_COUNT
        if self.timezone is datetime.timezone.utc and isinstance(params.get("context"), AdaptersMap):
            params["context"] = _utc_adapters(params["context"])  # UtcTimestamptzLoader
        return params

    def close_if_unusable_or_obsolete(self):
        super().close_if_unusable_or_obsolete()
        self.carried_over = self.connection is not None

    def _commit(self):
        try:
            # BaseDatabaseWrapper._commit / _rollback: Django's private methods, not declared by django-stubs.
            return super()._commit()  # type: ignore[misc]
        except BaseException as exc:  # COMMIT waits for the server too (deferred triggers, a slow disk)
            self.close_if_interrupted(exc)
            raise

    def _rollback(self):
        try:
            return super()._rollback()  # type: ignore[misc]
        except BaseException as exc:
            self.close_if_interrupted(exc)
            raise

    def close_if_interrupted(self, exc: BaseException) -> None:
        """Drop the connection when `exc` stopped a statement (or a COMMIT, a ROLLBACK) while PostgreSQL was
        still answering it.

        An exception raised from a signal handler (Celery's soft time limit: SoftTimeLimitExceeded) stops
        psycopg wherever it waits, so the statement's answer stays unread: the connection remains busy
        with it, and every later statement on it fails with "another command is already in progress"
        (the run's own last step, failing its row as too complex, included). Django opens a new
        connection for the next statement; inside a transaction, the outermost atomic block sees it
        closed and rolls nothing back on it (PostgreSQL rolls back what the old connection had open).
        """
        conn = self.connection
        if conn is None or getattr(conn, "closed", True):
            return
        if conn.info.transaction_status != psycopg.pq.TransactionStatus.ACTIVE:
            return
        log.warning("A statement was interrupted (%s); dropping its connection", type(exc).__name__)
        self.close()

    def connection_is_dead(self) -> bool:
        conn = self.connection
        return conn is None or bool(getattr(conn, "closed", False)) or bool(getattr(conn, "broken", False))

    def make_cursor(self, cursor):
        return RetryingCursorWrapper(cursor, self)

    def prepared_cursor(self):
        """A cursor for statements of fixed text (the module's docstring): Django's wrapper (query
        logging, error translation, the reconnect above) around a PreparedCursor: the one this
        connection keeps (KeptPreparedCursor), or a new one while that one is lent out (a statement run
        while another's cursor is open)."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            kept = self._kept_cursor
            # psycopg's Cursor.connection and .closed (not in django-stubs).
            if kept is None or kept.connection is not self.connection or kept.closed:  # type: ignore[attr-defined]
                # psycopg's Cursor constructor, which django-stubs do not describe.
                kept = self._kept_cursor = KeptPreparedCursor(self.connection)  # type: ignore[call-arg]
            cursor = kept if not kept.lent else PreparedCursor(self.connection)  # type: ignore[call-arg]
            if cursor is kept:
                kept.lent = True
            # Django's BaseDatabaseWrapper._prepare_cursor (private, not in django-stubs): the wrapper every
            # cursor() gets.
            return self._prepare_cursor(cursor)  # type: ignore[attr-defined]

    def make_debug_cursor(self, cursor):
        return RetryingCursorDebugWrapper(cursor, self)
