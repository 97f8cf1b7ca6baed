"""Access and refresh tokens at rest: only their SHA-256 checksum (docs/security.md, issue 22 finding 6).

DOT has always looked tokens up by `token_checksum`, the SHA-256 of the token; this empties the `token`
column of every existing row (checking the checksum first), so a copy of the database holds no usable
token. Existing tokens keep working. Irreversible by nature: the reverse step does nothing.
"""
import hashlib

from django.conf import settings
from django.db import migrations

BATCH = 2000


def _forget_plain_values(Model) -> None:
    while True:
        rows = list(Model.objects.exclude(token="").only("pk", "token", "token_checksum")[:BATCH])
        if not rows:
            return
        for row in rows:
            row.token_checksum = hashlib.sha256(row.token.encode("utf-8")).hexdigest()
            row.token = ""
        Model.objects.bulk_update(rows, ["token", "token_checksum"])


def forget_plain_values(apps, schema_editor):
    for setting in (settings.OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL, settings.OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL):
        app_label, model_name = setting.split(".")
        _forget_plain_values(apps.get_model(app_label, model_name))


class Migration(migrations.Migration):
    dependencies = [
        ("oauth", "0005_application_logo_last_used"),
        # DOT's token models with both checksums (the refresh token's came in 0015).
        ("oauth2_provider", "0015_refreshtoken_token_checksum"),
    ]

    operations = [migrations.RunPython(forget_plain_values, migrations.RunPython.noop, elidable=True)]
