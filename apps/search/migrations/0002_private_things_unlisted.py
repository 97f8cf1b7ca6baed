"""Issue 22 #5: a private Thing is its creator's alone. The search row's `is_published` means "listed"
(published and not private: apps.search.services._MIRRORED); rows of Things already private are
corrected here. PostgreSQL only (the quick start never writes the table)."""
from django.db import migrations

FORWARD = """
UPDATE search_thing AS sr SET is_published = (t.is_published AND NOT t.is_private)
FROM things_thing AS t WHERE sr.thing_id = t.id AND t.is_private
"""
BACKWARD = """
UPDATE search_thing AS sr SET is_published = t.is_published
FROM things_thing AS t WHERE sr.thing_id = t.id AND t.is_private
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):

    dependencies = [("search", "0001_initial"), ("things", "0010_thing_version")]

    operations = [migrations.RunPython(forward, backward)]
