"""`manage.py things_documents_fill`: store the rendered HTML of every Thing whose stored rendering is
missing or stale (after an upgrade that added it, or one that changed markup.DOCUMENT_RENDERING). Reads
are correct without it (they render on the fly); this makes them fast again. Safe to run while serving."""
from django.core.management.base import BaseCommand

from apps.things.services import thing_documents_fill


class Command(BaseCommand):
    help = "Store the rendered description and instructions of every Thing whose stored HTML is stale."

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=1000)

    def handle(self, *args, batch: int, **options):
        written = thing_documents_fill(batch=batch)
        self.stdout.write(f"{written} Things' rendered documents written")
