from django.conf import settings
from django.core.management.base import BaseCommand

from apps.demo.services import (
    demo_authorize_url,
    demo_seed,
    demo_seed_community,
    demo_seed_models,
    demo_seed_photos,
    object_store_ensure_bucket,
)


class Command(BaseCommand):
    help = "Create demo users, an approved demo app, demo Things and a ready access token (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--summary", help="also write the summary to this file")

    def handle(self, *args, summary=None, **options):
        store_ok = object_store_ensure_bucket()
        result = demo_seed()
        demo_seed_community()
        if store_ok:
            # Outside demo_seed's transaction: they talk to the store.
            demo_seed_models()
            demo_seed_photos()
        base = settings.API_BASE_URL
        text = "\n".join(
            [
                "",
                "Thingyard is running.",
                f"  API and site:   {base}/   (interactive API docs: {base}/docs/)",
                f"  demo login:     {result.username} / {result.password}   at {base}/login/",
                f"  moderator:      {result.admin_username} / {result.password}   at {base}/admin/",
                f"  demo app:       client_id={result.client_id} client_secret={result.client_secret}",
                f"  OAuth flow:     {demo_authorize_url()}   (\"Allow\" shows the token working)",
                f"  access token:   {result.token}",
                f'  try:            curl -H "Authorization: Bearer {result.token}" {base}/users/me',
                f"  demo Things:    {base}/   (site)   and   {base}/newest/   (API)",
                "" if store_ok else "  warning: the object store did not answer; uploads will fail until it does",
                "",
            ]
        )
        self.stdout.write(text)
        if summary:
            with open(summary, "w") as fh:
                fh.write(text)
