"""`python manage.py store_bucket_create`: the object store's bucket (S3_BUCKET), made once per installation
before the first upload (README "Running in production"); running it again changes nothing."""
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.uploads import store


class Command(BaseCommand):
    help = "Create the object store's bucket (S3_BUCKET) unless it exists; exit 1 when the store cannot be reached."

    def handle(self, *args, **options):
        try:
            created = store.bucket_create()
        except store.StoreError as exc:
            raise CommandError(f"The object store at {store.public_endpoint()} cannot be reached: {exc}") from exc
        state = "created" if created else "already exists"
        self.stdout.write(f"Bucket {settings.S3_BUCKET!r} {state}.")
