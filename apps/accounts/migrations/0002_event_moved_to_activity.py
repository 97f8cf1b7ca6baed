"""Event now belongs to apps.activity (see activity.0001): drop it from accounts' state, keep the table."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("activity", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="Event")], database_operations=[]),
    ]
