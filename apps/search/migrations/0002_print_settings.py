"""The `material` filter column of the search table (issue 27): every existing Thing has no print settings
yet, so the default "" is already right (no backfill)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('search', '0001_initial'),
        ('things', '0010_print_settings'),
    ]

    operations = [
        migrations.AddField(
            model_name='searchthing',
            name='material',
            field=models.CharField(blank=True, default='', max_length=50),
        ),
    ]
