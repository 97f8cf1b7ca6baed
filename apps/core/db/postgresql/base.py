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
"""
import logging
from typing import TYPE_CHECKING

from django.db import InterfaceError, OperationalError
from django.db.backends.postgresql import base
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

log = logging.getLogger(__name__)


if TYPE_CHECKING:
    _CursorBase = CursorWrapper  # what the mixin is mixed into: db, cursor
else:
    _CursorBase = object


class _Retrying(_CursorBase):
    """The part of Django's cursor wrapper that sends a statement: replaces a dead carried-over
    connection once, outside transactions."""

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
            self.cursor = db.create_cursor()
            result = super()._execute(sql, params, *ignored_wrapper_args)  # type: ignore[misc]
        db.carried_over = False
        return result


class RetryingCursorWrapper(_Retrying, CursorWrapper):
    pass


class RetryingCursorDebugWrapper(_Retrying, CursorDebugWrapper):
    pass


class DatabaseWrapper(base.DatabaseWrapper):
    # Set when a request (or a Celery task) starts with a connection opened before it: its first
    # statement is the one that may find the server gone.
    carried_over = False

    def connect(self):
        super().connect()
        self.carried_over = False

    def close_if_unusable_or_obsolete(self):
        super().close_if_unusable_or_obsolete()
        self.carried_over = self.connection is not None

    def connection_is_dead(self) -> bool:
        conn = self.connection
        return conn is None or bool(getattr(conn, "closed", False)) or bool(getattr(conn, "broken", False))

    def make_cursor(self, cursor):
        return RetryingCursorWrapper(cursor, self)

    def make_debug_cursor(self, cursor):
        return RetryingCursorDebugWrapper(cursor, self)
