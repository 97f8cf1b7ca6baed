"""Tag and category counts: kept by the database's triggers (migration 0013), read by the selectors.

Nothing in Python moves a count: every write of the Things, their tags or their visibility moves them in
its own transaction, inside the database. What lives here is what reads or repairs them:
- `count_field(viewer)`: which of the two numbers a viewer sees (staff: `listed`, hidden Things included;
  everyone else: `shown`), as apps.things.selectors.thing_public_q decides what they see;
- `counts_drift()`: the rows whose numbers differ from a fresh count (`manage.py things_counts --check`;
  the tests compare after every kind of write);
- `counts_rebuild()`: the rows counted again from the tables (`manage.py things_counts --rebuild`, and a
  bulk load that ran with the triggers disabled: bench.seed).

The tag links' copies of their Thing's `added` and of whether everyone may see it (ThingTag.added and
ThingTag.shown, migrations 0015 and 0017's triggers) are kept the same way and checked and repaired beside
the counts: `links_added_drift()`, `links_added_fill()`.
"""
from django.db import connection, transaction

from apps.core.domain.moderation import viewer_sees_hidden

# The same statements as migration 0013's fill: each (table, key column, grouped count).
_COUNTED = (
    (
        "things_categorycount",
        "category_id",
        "SELECT category_id, COUNT(*), SUM(CASE WHEN is_hidden THEN 0 ELSE 1 END) FROM things_thing "
        "WHERE category_id IS NOT NULL AND is_published AND NOT is_private GROUP BY category_id",
    ),
    (
        "things_tagcount",
        "tag_id",
        "SELECT tt.tag_id, COUNT(*), SUM(CASE WHEN t.is_hidden THEN 0 ELSE 1 END) "
        "FROM things_thingtag tt INNER JOIN things_thing t ON t.id = tt.thing_id "
        "WHERE t.is_published AND NOT t.is_private GROUP BY tt.tag_id",
    ),
)


def count_field(viewer) -> str:
    """`listed` for a viewer who sees hidden Things (staff), else `shown`."""
    return "listed" if viewer_sees_hidden(viewer) else "shown"


def counts_drift() -> list[tuple[str, int, tuple[int, int], tuple[int, int]]]:
    """(table, key, kept (listed, shown), counted (listed, shown)) of every row that differs from a
    fresh count; a missing row counts as (0, 0). Empty when the counts are right."""
    drift = []
    with connection.cursor() as cursor:
        for table, key, counting in _COUNTED:
            cursor.execute(counting)
            counted = {row[0]: (int(row[1]), int(row[2])) for row in cursor.fetchall()}
            cursor.execute(f"SELECT {key}, listed, shown FROM {table}")  # noqa: S608 - fixed names
            kept = {row[0]: (int(row[1]), int(row[2])) for row in cursor.fetchall()}
            for name in sorted(set(counted) | set(kept)):
                have, want = kept.get(name, (0, 0)), counted.get(name, (0, 0))
                if have != want:
                    drift.append((table, name, have, want))
    return drift


def counts_rebuild() -> None:
    """Count every row again from the tables, in one transaction. PostgreSQL: the tables are locked
    against writers meanwhile, so no write lands between the count and the rows being replaced."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("LOCK TABLE things_thing, things_thingtag IN SHARE ROW EXCLUSIVE MODE")
        for table, key, counting in _COUNTED:
            cursor.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed names
            cursor.execute(f"INSERT INTO {table} ({key}, listed, shown) {counting}")  # noqa: S608


# Whether everyone may see a Thing, as the tag links copy it (ThingTag.shown, migration 0017).
_THING_SHOWN = "(t.is_published AND NOT t.is_private AND NOT t.is_hidden)"
# The links whose copies are not their Thing's `added` and shown state (PostgreSQL and SQLite alike:
# `added` of a Thing is never NULL).
_LINKS_ADDED_DIFFER = (
    "things_thingtag.added IS NULL OR things_thingtag.added <> t.added OR things_thingtag.shown IS NULL "
    f"OR things_thingtag.shown <> {_THING_SHOWN}"
)


def links_added_drift() -> int:
    """How many tag links carry another `added` or shown state than their Thing's (0 when the copies are
    right)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM things_thingtag INNER JOIN things_thing t ON t.id = things_thingtag.thing_id "
            f"WHERE {_LINKS_ADDED_DIFFER}"  # noqa: S608 - fixed text
        )
        return int(cursor.fetchone()[0])


def links_added_fill() -> int:
    """Give every tag link whose copies differ its Thing's `added` and shown state (one statement); how many
    it changed. For a load that ran with the triggers disabled, or a database restored from elsewhere."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE things_thingtag SET added = t.added, shown = {_THING_SHOWN} FROM things_thing t "  # noqa: S608
            f"WHERE t.id = things_thingtag.thing_id AND ({_LINKS_ADDED_DIFFER})"  # noqa: S608 - fixed text
        )
        return cursor.rowcount
