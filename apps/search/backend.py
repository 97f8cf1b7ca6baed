"""The one place that decides how search runs: PostgreSQL full text, or plain `icontains` elsewhere.

The quick start (`make run`) runs on SQLite, which has no tsvector; there every search falls back to
case-insensitive substring matching so the site still searches. Production and tests run PostgreSQL.
"""
from django.db import connection as default_connection


def full_text_search_enabled(connection=None) -> bool:
    """True when the database can run the weighted tsvector search (and has its GIN index)."""
    return (connection or default_connection).vendor == "postgresql"


# --- the quick start's stemming index (SQLite FTS5, issue 26) ------------------------------------------

SQLITE_FTS_TABLE = "search_thing_fts"
_SQLITE_FTS_SQL = [
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {SQLITE_FTS_TABLE} USING fts5(name, description, "
    "tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER IF NOT EXISTS search_thing_fts_insert AFTER INSERT ON things_thing BEGIN "
    f"INSERT INTO {SQLITE_FTS_TABLE} (rowid, name, description) VALUES (new.id, new.name, new.description); END",
    "CREATE TRIGGER IF NOT EXISTS search_thing_fts_delete AFTER DELETE ON things_thing BEGIN "
    f"DELETE FROM {SQLITE_FTS_TABLE} WHERE rowid = old.id; END",
    "CREATE TRIGGER IF NOT EXISTS search_thing_fts_update AFTER UPDATE OF name, description ON things_thing "
    f"BEGIN DELETE FROM {SQLITE_FTS_TABLE} WHERE rowid = old.id; "
    f"INSERT INTO {SQLITE_FTS_TABLE} (rowid, name, description) VALUES (new.id, new.name, new.description); END",
    # Filled anew each time: a migration that rebuilds things_thing (SQLite alters a table by copying
    # it) drops its triggers, and the rows written meanwhile would be missing. A quick start is small.
    f"DELETE FROM {SQLITE_FTS_TABLE}",
    f"INSERT INTO {SQLITE_FTS_TABLE} (rowid, name, description) SELECT id, name, description FROM things_thing",
]


def sqlite_fts_ensure(connection, **kwargs) -> None:
    """The SQLite quick start's FTS5 index of Things and the triggers keeping it, in place and filled
    (idempotent; nothing on another vendor). Run after every `migrate` (apps.search.apps)."""
    if connection.vendor != "sqlite":
        return
    tables = connection.introspection.table_names()
    if "things_thing" not in tables:
        return
    with connection.cursor() as cursor:
        for statement in _SQLITE_FTS_SQL:
            cursor.execute(statement)
