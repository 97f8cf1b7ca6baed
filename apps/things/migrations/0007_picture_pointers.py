"""A Thing's pictures as pointers (docs/decisions.md "A Thing's pictures as pointers", issue 17), part 1 of 3.

`default_image` and `file_thumbnail_key` replace the correlated subqueries every Thing statement carried.
Here they are added bare (the foreign key without its constraint and index: both instant); 0008 fills
them in batches, 0009 adds the constraint and the index once the column is filled.
"""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("things", "0006_admin_names"),
        ("uploads", "0006_admin_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="thing",
            name="default_image",
            field=models.ForeignKey(
                blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL,
                related_name="+", to="uploads.image", db_constraint=False, db_index=False,
            ),
        ),
        migrations.AddField(
            model_name="thing",
            name="file_thumbnail_key",
            field=models.CharField(blank=True, default="", editable=False, max_length=512),
        ),
    ]
