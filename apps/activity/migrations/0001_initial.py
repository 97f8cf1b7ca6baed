"""The Event model moves from accounts to activity with its table and rows.

Only Django's model state moves (SeparateDatabaseAndState): the table stays `accounts_event` (Meta.db_table)
with its index, so no row is copied and nothing is locked. accounts.0002 removes the model from accounts'
state once this has claimed it. The content type moves with it, so admin log entries and permissions
that name `accounts | event` follow it to `activity | event`.
"""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _content_type_move(apps, schema_editor, *, source, target):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label=target, model="event").exists():
        ContentType.objects.using(db).filter(app_label=source, model="event").update(app_label=target)


def content_type_to_activity(apps, schema_editor):
    _content_type_move(apps, schema_editor, source="accounts", target="activity")


def content_type_to_accounts(apps, schema_editor):
    _content_type_move(apps, schema_editor, source="activity", target="accounts")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("accounts", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Event",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("kind", models.CharField(choices=[("follow", "New follower"), ("like", "Like"), ("comment", "Comment"), ("make", "Make"), ("collect", "Collect"), ("other", "Other")], max_length=16)),
                        ("target_type", models.CharField(blank=True, max_length=32)),
                        ("target_id", models.BigIntegerField(blank=True, null=True)),
                        ("created", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("actor", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("recipient", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="events", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "accounts_event",
                        "indexes": [models.Index(fields=["recipient", "created"], name="accounts_ev_recipie_7c3017_idx")],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_type_to_activity, content_type_to_accounts),
    ]
