"""A Thing's structured print settings (issue 27; apps/things/printsettings.py): nullable, no backfill."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('things', '0009_picture_pointers_constraint'),
    ]

    operations = [
        migrations.AddField(
            model_name='thing',
            name='print_settings',
            field=models.JSONField(blank=True, null=True),
        ),
    ]
