"""`manage.py things_counts`: check the tag and category counts the database keeps (migration 0013)
against a fresh count, and count them again with `--rebuild` (after a bulk load that ran with the
triggers disabled, or a database restored from elsewhere). Exits 1 when `--check` finds a difference."""
from django.core.management.base import BaseCommand, CommandError

from apps.things.counts import counts_drift, counts_rebuild


class Command(BaseCommand):
    help = "Check (default) or rebuild the kept tag and category counts."

    def add_arguments(self, parser):
        parser.add_argument("--rebuild", action="store_true", help="count every row again from the tables")

    def handle(self, *args, rebuild: bool, **options):
        if rebuild:
            counts_rebuild()
            self.stdout.write("tag and category counts rebuilt")
            return
        drift = counts_drift()
        for table, key, kept, counted in drift:
            self.stdout.write(f"{table} {key}: kept (listed, shown) {kept}, counted {counted}")
        if drift:
            raise CommandError(f"{len(drift)} count row(s) differ from the tables; run with --rebuild")
        self.stdout.write("tag and category counts match the tables")
