"""Image.copy_id becomes a real foreign key to makes.Make (CASCADE), keeping its column `copy_id`; and the
upload kind `copy_new` (POST /things/{id}/copies: the make is created when its first image is finalized).

Before the makes app no endpoint created copy images, so rows naming a missing make can only be strays;
they are removed first, or the new constraint could not be created.
"""
import django.db.models.deletion
from django.db import migrations, models


def delete_stray_copy_images(apps, schema_editor):
    Image = apps.get_model("uploads", "Image")
    Make = apps.get_model("makes", "Make")
    Image.objects.filter(copy__isnull=False).exclude(copy__in=Make.objects.values("pk")).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("uploads", "0002_image_modified_download_file_set_null"),
        ("makes", "0001_initial"),
    ]

    operations = [
        # The field is renamed in the state only: its column is `copy_id` before and after.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name="image", name="copy_id"),
                migrations.AddField(
                    model_name="image",
                    name="copy",
                    field=models.BigIntegerField(blank=True, null=True, db_column="copy_id"),
                ),
            ],
        ),
        migrations.RunPython(delete_stray_copy_images, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="image",
            name="copy",
            field=models.ForeignKey(
                blank=True,
                help_text="The copy (make) it belongs to",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="images",
                to="makes.make",
            ),
        ),
        migrations.AlterField(
            model_name="upload",
            name="kind",
            field=models.CharField(
                choices=[
                    ("thing_file", "Thing file"),
                    ("thing_image", "Thing image"),
                    ("copy_image", "Copy (make) image"),
                    ("copy_new", "New copy (make) with its first image"),
                    ("avatar", "User avatar"),
                    ("cover", "User cover"),
                    ("group_image", "Group image"),
                ],
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="upload",
            name="target_id",
            field=models.BigIntegerField(help_text="Thing, copy, user or group id, by kind (copy_new: the Thing)"),
        ),
    ]
