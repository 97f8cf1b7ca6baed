"""ThingFile.meta_data becomes `geometry` (DECISIONS.md: File): the mesh analysis, null when there is none.

On the wire `meta_data` is now always a JSON array (compat) and the analysis is the `geometry` object, so
the column carries the name it is shown under. The empty object the old column held for files that are
not meshes (and before processing) becomes null.
"""
from django.db import migrations, models


def empty_to_null(apps, schema_editor):
    ThingFile = apps.get_model("uploads", "ThingFile")
    ThingFile.objects.filter(geometry={}).update(geometry=None)


class Migration(migrations.Migration):
    dependencies = [("uploads", "0003_image_copy_foreign_key")]

    operations = [
        migrations.RenameField("thingfile", "meta_data", "geometry"),
        migrations.AlterField(
            "thingfile", "geometry", models.JSONField(null=True, blank=True, default=None)
        ),
        migrations.RunPython(empty_to_null, migrations.RunPython.noop),
    ]
