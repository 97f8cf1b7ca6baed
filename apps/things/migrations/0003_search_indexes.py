"""Search indexes (apps/search), PostgreSQL only: the quick start runs on SQLite, where search falls back to
substring matching (apps/search/backend.py) and these indexes have no equivalent.

Raw SQL because Django's model state cannot express them all (expression + collation + partial), and
they are read only by apps/search's hand-written queries, which must keep matching these expressions.
"""
from django.db import migrations

INDEXES = {
    # `search_vector @@ websearch_to_tsquery(...)`: every full-text search.
    "things_thing_search_gin": "ON things_thing USING gin (search_vector)",
    # Autocomplete: `lower(name) COLLATE "C" LIKE 'prefix%' ORDER BY lower(name) COLLATE "C", id`.
    # The C collation lets one btree serve both the prefix range and the order, whatever the database
    # collation is, so a one-letter prefix reads 10 index entries instead of sorting every match.
    "things_thing_name_prefix_idx": '''ON things_thing ((lower(name) COLLATE "C"), id) WHERE is_published''',
    "things_tag_name_prefix_idx": '''ON things_tag ((lower(name) COLLATE "C"))''',
    # sort=popular and sort=likes over all published Things (no term): an index walk, not a sort of all.
    "things_thing_popular_idx": (
        "ON things_thing ((like_count + make_count + download_count) DESC, id DESC) WHERE is_published"
    ),
    "things_thing_likes_idx": "ON things_thing (like_count DESC, id DESC) WHERE is_published",
}


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, definition in INDEXES.items():
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} {definition}")


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("things", "0002_seed_categories")]

    operations = [migrations.RunPython(create_indexes, drop_indexes, elidable=False)]
