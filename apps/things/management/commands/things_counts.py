"""`manage.py things_counts`: check the tag and category counts the database keeps (migration 0013)
against a fresh count, and the tag links' copies of their Things' `added` and shown state (migrations 0015
and 0017) against the Things; `--rebuild` counts and copies them again (after a bulk load that ran with the triggers
disabled, or a database restored from elsewhere). Exits 1 when the check finds a difference."""
from django.core.management.base import BaseCommand, CommandError

from apps.things.counts import counts_drift, counts_rebuild, links_added_drift, links_added_fill


class Command(BaseCommand):
    help = "Check (default) or rebuild the kept tag and category counts and the tag links' copies of their Things."

    def add_arguments(self, parser):
        parser.add_argument("--rebuild", action="store_true", help="count every row again from the tables")

    def handle(self, *args, rebuild: bool, **options):
        if rebuild:
            counts_rebuild()
            copied = links_added_fill()
            self.stdout.write(f"tag and category counts rebuilt; {copied} tag link(s) given their Thing's `added` and shown state")
            return
        drift = counts_drift()
        for table, key, kept, counted in drift:
            self.stdout.write(f"{table} {key}: kept (listed, shown) {kept}, counted {counted}")
        links = links_added_drift()
        if links:
            self.stdout.write(f"things_thingtag: {links} link(s) carry another `added` or shown state than their Thing's")
        if drift or links:
            raise CommandError(f"{len(drift) + links} row(s) differ from the tables; run with --rebuild")
        self.stdout.write("tag and category counts and the tag links' copies match the tables")
