"""A tag link carries whether everyone may see its Thing (`shown`: published, not private, not hidden),
copied by the database as its `added` is (migration 0015), and a partial index holds a tag's shown Things
newest first (docs/decisions.md, "A tag's deep pages chosen in the tag links' index").

A page of a tag's Things far from the first one read every link before it and fetched each one's Thing
to check that it may be shown: page 500 of a tag with 15,000 Things took 140–170 ms. With the check on
the link itself, the page's ids are chosen in the partial index alone, and only those 30 Things are read.

The copy is made by the triggers of migration 0015, widened: when a link is inserted, moved to another
Thing or written by Python (whatever it sends, the database's value wins), and when a Thing's `added`,
publication, privacy or moderation changes, by whatever statement. Existing links are filled here.
"""

from importlib import import_module

from django.db import migrations, models

PG_FORWARD = """
CREATE OR REPLACE FUNCTION things_thingtag_added_copy() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    thing things_thing%ROWTYPE;
BEGIN
    SELECT * INTO thing FROM things_thing t WHERE t.id = NEW.thing_id;
    NEW.added := thing.added;
    NEW.shown := COALESCE(thing.is_published AND NOT thing.is_private AND NOT thing.is_hidden, FALSE);
    RETURN NEW;
END
$$;
---
DROP TRIGGER IF EXISTS things_thingtag_added ON things_thingtag;
---
CREATE TRIGGER things_thingtag_added BEFORE INSERT OR UPDATE OF thing_id, added, shown ON things_thingtag
FOR EACH ROW EXECUTE FUNCTION things_thingtag_added_copy();
---
CREATE OR REPLACE FUNCTION things_thing_added_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE things_thingtag SET added = NEW.added,
        shown = (NEW.is_published AND NOT NEW.is_private AND NOT NEW.is_hidden)
    WHERE thing_id = NEW.id;
    RETURN NULL;
END
$$;
---
DROP TRIGGER IF EXISTS things_thing_added_follow ON things_thing;
---
CREATE TRIGGER things_thing_added_follow AFTER UPDATE OF added, is_published, is_private, is_hidden
ON things_thing FOR EACH ROW WHEN (
    OLD.added IS DISTINCT FROM NEW.added OR OLD.is_published IS DISTINCT FROM NEW.is_published
    OR OLD.is_private IS DISTINCT FROM NEW.is_private OR OLD.is_hidden IS DISTINCT FROM NEW.is_hidden
) EXECUTE FUNCTION things_thing_added_follow();
---
UPDATE things_thingtag tt SET shown = (t.is_published AND NOT t.is_private AND NOT t.is_hidden)
FROM things_thing t WHERE t.id = tt.thing_id;
"""

# SQLite (the quick start) cannot change the row a BEFORE trigger inserts: the link is written after it.
_SQLITE_LINK = """
DROP TRIGGER IF EXISTS things_thingtag_added_{event};
---
CREATE TRIGGER things_thingtag_added_{event} AFTER {clause} ON things_thingtag
BEGIN
    UPDATE things_thingtag SET
        added = (SELECT t.added FROM things_thing t WHERE t.id = NEW.thing_id),
        shown = COALESCE((SELECT t.is_published AND NOT t.is_private AND NOT t.is_hidden
                          FROM things_thing t WHERE t.id = NEW.thing_id), 0)
    WHERE id = NEW.id;
END;
---"""
SQLITE_FORWARD = (
    _SQLITE_LINK.format(event="insert", clause="INSERT")
    + _SQLITE_LINK.format(event="update", clause="UPDATE OF thing_id, added, shown")
    + """
DROP TRIGGER IF EXISTS things_thing_added_follow;
---
CREATE TRIGGER things_thing_added_follow AFTER UPDATE OF added, is_published, is_private, is_hidden
ON things_thing
WHEN OLD.added IS NOT NEW.added OR OLD.is_published IS NOT NEW.is_published
    OR OLD.is_private IS NOT NEW.is_private OR OLD.is_hidden IS NOT NEW.is_hidden
BEGIN
    UPDATE things_thingtag SET added = NEW.added,
        shown = (NEW.is_published AND NOT NEW.is_private AND NOT NEW.is_hidden)
    WHERE thing_id = NEW.id;
END;
---
UPDATE things_thingtag SET shown = COALESCE((SELECT t.is_published AND NOT t.is_private AND NOT t.is_hidden
    FROM things_thing t WHERE t.id = things_thingtag.thing_id), 0);
""")

# Going back is migration 0015's state: its triggers dropped and made again by its own scripts (its
# forward script ends with a fill of `added`, which finds nothing to change).
_M0015 = import_module("apps.things.migrations.0015_thingtag_added")


def forward(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    _M0015._run(schema_editor, PG_FORWARD if postgresql else SQLITE_FORWARD)


def backward(apps, schema_editor):
    _M0015.backward(apps, schema_editor)
    _M0015.forward(apps, schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ('things', '0016_listed_added_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='thingtag',
            name='shown',
            field=models.BooleanField(editable=False, null=True),
        ),
        migrations.RunPython(forward, backward),
        migrations.AddIndex(
            model_name='thingtag',
            index=models.Index(condition=models.Q(('shown', True)), fields=['tag', '-added', '-thing'], name='things_thingtag_shown_idx'),
        ),
    ]
