"""The apps' read-only tokens are shown once, like client secrets: keep only their checksum.

A token already issued keeps working (lookups use the checksum); its plain value is no longer stored.
"""
from django.conf import settings
from django.db import migrations

READONLY_TOKEN_SCOPE = "orders:read"  # apps.developers.rules, frozen here


def forget_plain_values(apps, schema_editor):
    app_label, model_name = settings.OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL.split(".")
    AccessToken = apps.get_model(app_label, model_name)
    AccessToken.objects.filter(user__isnull=True, scope=READONLY_TOKEN_SCOPE).exclude(token="").update(token="")


class Migration(migrations.Migration):
    dependencies = [
        ("developers", "0001_initial"),
        migrations.swappable_dependency(settings.OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL),
    ]

    operations = [migrations.RunPython(forget_plain_values, migrations.RunPython.noop)]
