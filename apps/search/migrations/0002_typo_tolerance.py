"""Search that forgives (issue 26): trigram similarity for "did you mean" on PostgreSQL, and a stemming
full-text index on the SQLite quick start so both find "brackets" for "Bracket".

PostgreSQL: the pg_trgm extension (trusted since PostgreSQL 13: the database's owner may create it) and
a trigram index on the public Things' lower-cased names, read only when a term matched nothing
(selectors.search_suggestion). SQLite: an FTS5 table with the Porter stemmer over the Things' names and
descriptions, kept by triggers (the quick start has no search table: backend.sqlite_fts_ensure).
"""
from django.db import migrations

PG_FORWARDS = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX IF NOT EXISTS things_thing_name_trgm_idx ON things_thing "
    "USING gin (lower(name) gin_trgm_ops) WHERE is_published AND NOT is_hidden",
    "CREATE INDEX IF NOT EXISTS things_tag_name_trgm_idx ON things_tag USING gin (lower(name) gin_trgm_ops)",
]
PG_BACKWARDS = [
    "DROP INDEX IF EXISTS things_thing_name_trgm_idx",
    "DROP INDEX IF EXISTS things_tag_name_trgm_idx",
]
SQLITE_BACKWARDS = [
    "DROP TRIGGER IF EXISTS search_thing_fts_insert",
    "DROP TRIGGER IF EXISTS search_thing_fts_delete",
    "DROP TRIGGER IF EXISTS search_thing_fts_update",
    "DROP TABLE IF EXISTS search_thing_fts",
]


def _run(statements_by_vendor, *, sqlite_fts=False):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)
        if sqlite_fts:
            # The table, its triggers and its rows (apps.search.backend; re-run after every migrate).
            from apps.search.backend import sqlite_fts_ensure

            sqlite_fts_ensure(schema_editor.connection)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0001_initial"),
        ("things", "0003_search_indexes"),
    ]

    operations = [
        migrations.RunPython(
            _run({"postgresql": PG_FORWARDS}, sqlite_fts=True),
            _run({"postgresql": PG_BACKWARDS, "sqlite": SQLITE_BACKWARDS}),
            elidable=False,
        ),
    ]
