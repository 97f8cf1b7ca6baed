"""A Thing's pictures as pointers, part 3 of 3: `default_image`'s foreign key (ON DELETE SET NULL, by
Django's collector) and its index, built once over the filled column (the collector's SET NULL looks
Things up by it)."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("things", "0008_picture_pointers_fill"),
    ]

    operations = [
        migrations.AlterField(
            model_name="thing",
            name="default_image",
            field=models.ForeignKey(
                blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL,
                related_name="+", to="uploads.image",
            ),
        ),
    ]
