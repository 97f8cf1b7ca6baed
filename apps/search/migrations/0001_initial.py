"""The search table (apps/search/models.py), its indexes and its foreign key, filled from the Things.

PostgreSQL only beyond the table itself: the quick start on SQLite never writes it (backend.py).
"""
import django.contrib.postgres.search
from django.db import migrations, models

INDEXES = {
    # A rare term: the matching rows straight from the posting lists, then the top of them by likes.
    "search_thing_vector_gin": "ON search_thing USING gin (vector) WHERE is_published",
    # A common term (and sort=likes): walk the most liked rows, test each against the query, stop at
    # the window's size. Relevance ranks that window (selectors._thing_search).
    "search_thing_likes_idx": "ON search_thing (like_count DESC, thing_id DESC) WHERE is_published",
    "search_thing_popular_idx": "ON search_thing (popularity DESC, thing_id DESC) WHERE is_published",
    "search_thing_added_idx": "ON search_thing (added DESC, thing_id DESC) WHERE is_published",
    # A creator's own Things, published or not (library search, a user's Things).
    "search_thing_creator_idx": "ON search_thing (creator_id, added DESC, thing_id DESC)",
}

# Issue 17: one row per Thing, as apps.search.services.thing_index_search writes it.
BACKFILL = """
INSERT INTO search_thing (thing_id, vector, creator_id, is_published, is_hidden, is_wip, license,
                          category_id, make_count, added, like_count, popularity)
SELECT id, search_vector, creator_id, is_published, is_hidden, is_wip, license, category_id, make_count,
       added, like_count, like_count + make_count + download_count
FROM things_thing
ON CONFLICT (thing_id) DO NOTHING
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE search_thing ADD CONSTRAINT search_thing_thing_id_fk FOREIGN KEY (thing_id) "
        "REFERENCES things_thing (id) ON DELETE CASCADE"
    )
    schema_editor.execute(BACKFILL)
    for name, definition in INDEXES.items():
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} {definition}")
    # The planner picks the GIN index or the likes walk per term from the vector's statistics: have
    # them from the start, not from autovacuum's first visit.
    schema_editor.execute("ANALYZE search_thing")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")
    schema_editor.execute("ALTER TABLE search_thing DROP CONSTRAINT IF EXISTS search_thing_thing_id_fk")


class Migration(migrations.Migration):
    initial = True

    dependencies = [("things", "0004_moderation")]

    operations = [
        migrations.CreateModel(
            name="SearchThing",
            fields=[
                ("thing", models.OneToOneField(
                    db_constraint=False, on_delete=models.DO_NOTHING, primary_key=True, related_name="+",
                    serialize=False, to="things.thing")),
                ("vector", django.contrib.postgres.search.SearchVectorField(null=True)),
                ("creator_id", models.BigIntegerField()),
                ("is_published", models.BooleanField()),
                ("is_hidden", models.BooleanField()),
                ("is_wip", models.BooleanField()),
                ("license", models.CharField(max_length=16)),
                ("category_id", models.BigIntegerField(null=True)),
                ("make_count", models.PositiveIntegerField()),
                ("added", models.DateTimeField()),
                ("like_count", models.PositiveIntegerField()),
                ("popularity", models.BigIntegerField()),
            ],
            options={"db_table": "search_thing"},
        ),
        migrations.RunPython(forwards, backwards, elidable=False),
    ]
