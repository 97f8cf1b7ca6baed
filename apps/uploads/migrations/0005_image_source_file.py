"""Renders are images (DECISIONS.md: Thing images, compat): Image.source_file, and the renders of the
mesh files processed before this release.

New renders are made by file processing (apps.uploads.processing.services). Each live file that already
has a render (its 400×300 thumbnail) gets its render image here, in `processing` and dated in the past,
so the next sweep of stuck processing (every 15 minutes) renders its sizes with the ordinary image
processing; until then only the Thing's owner sees it, as any image being processed. Its original is the
file's thumbnail object, which the file owns (deleting the image leaves that object to the file).
"""
from datetime import UTC, datetime
from pathlib import PurePosixPath

import django.db.models.deletion
from django.db import migrations, models

LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


def renders_of_processed_files(apps, schema_editor):
    ThingFile = apps.get_model("uploads", "ThingFile")
    Image = apps.get_model("uploads", "Image")
    files = ThingFile.objects.filter(status="live", render_image__isnull=True).exclude(thumbnail_key="")
    created = []
    for file in files.only("id", "thing_id", "name", "thumbnail_key").iterator():
        created.append(
            Image(thing_id=file.thing_id, source_file_id=file.pk, name=f"{PurePosixPath(file.name).stem}.png",
                  key=file.thumbnail_key, size=0, status="processing")
        )
        if len(created) == 500:
            Image.objects.bulk_create(created)
            created = []
    Image.objects.bulk_create(created)
    # auto_now sets `modified` on insert; the stuck-processing sweep picks rows older than 30 minutes.
    Image.objects.filter(source_file__isnull=False, status="processing", sizes=[]).update(modified=LONG_AGO)


class Migration(migrations.Migration):

    dependencies = [
        ("uploads", "0004_file_geometry"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="image",
            options={
                "ordering": [
                    models.Case(
                        models.When(source_file__isnull=True, then=models.Value(0)),
                        default=models.Value(1),
                        output_field=models.IntegerField(),
                    ),
                    "rank",
                    "added",
                    "id",
                ]
            },
        ),
        migrations.AddField(
            model_name="image",
            name="source_file",
            field=models.OneToOneField(
                blank=True,
                help_text="The mesh file this image is the render of (null for an uploaded image)",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="render_image",
                to="uploads.thingfile",
            ),
        ),
        migrations.RunPython(renders_of_processed_files, migrations.RunPython.noop),
    ]
