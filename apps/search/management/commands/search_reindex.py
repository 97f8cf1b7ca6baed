from django.core.management.base import BaseCommand

from apps.search.backend import full_text_search_enabled
from apps.search.services import REINDEX_BATCH_SIZE, thing_index_search_all


class Command(BaseCommand):
    help = "Recompute the search vector of every Thing (after a bulk import or a change of weights)."

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=REINDEX_BATCH_SIZE)

    def handle(self, *args, batch_size, **options):
        if not full_text_search_enabled():
            self.stdout.write("Not PostgreSQL: search uses substring matching, nothing to index.")
            return
        count = thing_index_search_all(batch_size=max(1, batch_size))
        self.stdout.write(f"Indexed {count} Things.")
