from django.conf import settings
from django.core.management.base import BaseCommand

from apps.demo.services import demo_seed, demo_seed_models, object_store_ensure_bucket


class Command(BaseCommand):
    help = "Create demo users, an approved demo app, demo Things and a ready access token (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--summary", help="also write the summary to this file")

    def handle(self, *args, summary=None, **options):
        store_ok = object_store_ensure_bucket()
        result = demo_seed()
        if store_ok:
            demo_seed_models()  # outside demo_seed's transaction: it talks to the store
        base = settings.API_BASE_URL
        text = "\n".join(
            [
                "",
                "Thingyard is running.",
                f"  API and site:   {base}/   (interactive API docs: {base}/docs/)",
                f"  demo login:     {result.username} / {result.password}   at {base}/login/",
                f"  moderator:      {result.admin_username} / {result.password}   at {base}/admin/",
                f"  demo app:       client_id={result.client_id} client_secret={result.client_secret}",
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
