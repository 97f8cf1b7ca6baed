"""A tag link carries its Thing's `added`, copied by the database, and an index walks a tag's Things newest
first (docs/decisions.md, "A tag's Things in order").

A tag's Things newest first (`/tags/{tag}/things`, `/search/{tag}/tag`, the site's tag page) were found
either by walking the newest Things and keeping the tag's (fast only for a common tag whose Things are
spread over time) or by reading all the tag's Things and sorting them (a cost that grows with the tag):
PostgreSQL picks one by its estimate, and a tag whose Things are all old, or a plan that starts parallel
workers, turned a 1 ms page into 100 ms. With the Thing's `added` on each link and an index on (tag,
added, Thing), the page is the first entries of the tag's own part of the index, whatever the tag.

The copy is made by triggers in the writer's own transaction, as migration 0013's counts are: when a
link is inserted (or moved to another Thing), and when a Thing's `added` changes. Nothing in Python
writes it. Existing links are filled here, before the index is built.
"""

from django.db import migrations, models

PG_FORWARD = """
CREATE OR REPLACE FUNCTION things_thingtag_added_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.added := (SELECT t.added FROM things_thing t WHERE t.id = NEW.thing_id);
    RETURN NEW;
END
$$;
---
CREATE TRIGGER things_thingtag_added BEFORE INSERT OR UPDATE OF thing_id, added ON things_thingtag
FOR EACH ROW EXECUTE FUNCTION things_thingtag_added_copy();
---
CREATE OR REPLACE FUNCTION things_thing_added_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE things_thingtag SET added = NEW.added WHERE thing_id = NEW.id;
    RETURN NULL;
END
$$;
---
CREATE TRIGGER things_thing_added_follow AFTER UPDATE OF added ON things_thing
FOR EACH ROW WHEN (OLD.added IS DISTINCT FROM NEW.added) EXECUTE FUNCTION things_thing_added_follow();
---
UPDATE things_thingtag tt SET added = t.added FROM things_thing t WHERE t.id = tt.thing_id;
"""

PG_BACKWARD = """
DROP TRIGGER IF EXISTS things_thing_added_follow ON things_thing;
---
DROP FUNCTION IF EXISTS things_thing_added_follow();
---
DROP TRIGGER IF EXISTS things_thingtag_added ON things_thingtag;
---
DROP FUNCTION IF EXISTS things_thingtag_added_copy();
"""

# SQLite (the quick start) cannot change the row a BEFORE trigger inserts: the link is written after it.
_SQLITE_COPY = """
CREATE TRIGGER things_thingtag_added_{event} AFTER {clause} ON things_thingtag
BEGIN
    UPDATE things_thingtag SET added = (SELECT t.added FROM things_thing t WHERE t.id = NEW.thing_id)
    WHERE id = NEW.id;
END;
---"""
SQLITE_FORWARD = (
    _SQLITE_COPY.format(event="insert", clause="INSERT")
    + _SQLITE_COPY.format(event="update", clause="UPDATE OF thing_id, added")
    + """
CREATE TRIGGER things_thing_added_follow AFTER UPDATE OF added ON things_thing
WHEN OLD.added IS NOT NEW.added
BEGIN
    UPDATE things_thingtag SET added = NEW.added WHERE thing_id = NEW.id;
END;
---
UPDATE things_thingtag SET added = (SELECT t.added FROM things_thing t WHERE t.id = things_thingtag.thing_id);
""")

SQLITE_BACKWARD = """
DROP TRIGGER IF EXISTS things_thing_added_follow;
---
DROP TRIGGER IF EXISTS things_thingtag_added_update;
---
DROP TRIGGER IF EXISTS things_thingtag_added_insert;
"""


def forward(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    _run(schema_editor, PG_FORWARD if postgresql else SQLITE_FORWARD)


def backward(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    _run(schema_editor, PG_BACKWARD if postgresql else SQLITE_BACKWARD)


def _run(schema_editor, script: str) -> None:
    for statement in script.split("---"):
        if statement.strip():
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ('things', '0014_popular_lifetime_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='thingtag',
            name='added',
            field=models.DateTimeField(editable=False, null=True),
        ),
        migrations.RunPython(forward, backward),
        migrations.AddIndex(
            model_name='thingtag',
            index=models.Index(fields=['tag', '-added', '-thing'], name='things_thingtag_newest_idx'),
        ),
    ]
