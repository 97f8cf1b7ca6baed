from django.core.management.base import BaseCommand

from apps.uploads.files.services import thing_pictures_repair


class Command(BaseCommand):
    help = (
        "Re-point the Things whose default image or thumbnail file pointer disagrees with their images and "
        "files (run once after deploying the pointers if old code changed images meanwhile)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=1000)

    def handle(self, *args, batch_size, **options):
        repaired = thing_pictures_repair(batch=max(1, batch_size))
        self.stdout.write(f"Re-pointed {len(repaired)} Things.")
