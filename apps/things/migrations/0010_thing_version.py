"""A Thing's version, owned by the database (issue 24): every UPDATE of a Thing's row moves it, whatever
sent the UPDATE (a save, `QuerySet.update()` in an admin action, a counter, raw SQL), in the same
transaction. The read path's cached bodies, short forms and kept pages are validated against it, so an
invalidation lost while Redis was unreachable can never bring an old body back (apps.things.bodycache).

On PostgreSQL a new row starts at the clock in microseconds, so a database rebuilt from scratch does not
reuse (id, version) pairs an old cache may still hold; on SQLite (the quick start) at 1."""
from django.db import migrations, models

PG_FORWARD = """
CREATE OR REPLACE FUNCTION things_thing_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.version := (extract(epoch FROM clock_timestamp()) * 1000000)::bigint;
    ELSE
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;
---
CREATE TRIGGER things_thing_version BEFORE INSERT OR UPDATE ON things_thing
    FOR EACH ROW EXECUTE FUNCTION things_thing_version();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS things_thing_version ON things_thing;
---
DROP FUNCTION IF EXISTS things_thing_version();
"""
SQLITE_FORWARD = """
CREATE TRIGGER things_thing_version AFTER UPDATE ON things_thing FOR EACH ROW
WHEN NEW.version <= OLD.version
BEGIN
    UPDATE things_thing SET version = OLD.version + 1 WHERE id = NEW.id;
END;
"""
SQLITE_BACKWARD = "DROP TRIGGER IF EXISTS things_thing_version;"


def forward(apps, schema_editor):
    _run(schema_editor, PG_FORWARD if schema_editor.connection.vendor == "postgresql" else SQLITE_FORWARD)


def backward(apps, schema_editor):
    _run(schema_editor, PG_BACKWARD if schema_editor.connection.vendor == "postgresql" else SQLITE_BACKWARD)


def _run(schema_editor, script: str) -> None:
    for statement in script.split("---"):
        if statement.strip():
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("things", "0009_picture_pointers_constraint"),
    ]

    operations = [
        migrations.AddField(
            model_name="thing",
            name="version",
            field=models.BigIntegerField(default=1, editable=False),
        ),
        migrations.RunPython(forward, backward),
    ]
