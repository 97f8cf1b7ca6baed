"""Writes of the search index: the weighted tsvector of each Thing (name A > tags B > description C) and
the search table (models.SearchThing) every term search reads.

Every service that changes what a search can match, who may see a Thing, a filter column or a counter
search orders by calls one of these (issue 17), so the search row never lags its Thing. Things call them
through the index this app registers with apps.things.hooks (SearchConfig.ready):

- `thing_index_search`: the vector and the whole row (create, text or tag changes, admin edits);
- `thing_search_sync`: the row's visibility and filter columns (publish, hide/unhide, license…);
- `thing_counters_update`: a Thing counter UPDATE and the row's order columns, in one statement
  (likes, makes, downloads), so keeping the row costs those hot paths no extra query.

A Thing's deletion removes its row in the database (ON DELETE CASCADE). Those that change what a search
can match also start a new search generation (window.search_generation_bump): every cached window is
then stale (selectors: the ranked window cache). Counter changes do not: they only reorder a window,
which may lag by the cache's lifetime (docs/decisions.md, "Search table and window cache").
"""
from collections.abc import Iterable
from typing import cast

from django.db import connection
from django.db.models import QuerySet
from django.db.models.sql import UpdateQuery

from apps.search.backend import full_text_search_enabled
from apps.search.models import SearchThing
from apps.search.window import search_generation_bump
from apps.things.models import Tag, Thing, ThingTag

_THING = Thing._meta.db_table
_ROW = SearchThing._meta.db_table
# The row's columns that mirror the Thing's (search column = expression over the Thing's columns `t`).
_MIRRORED = {
    "creator_id": "t.creator_id",
    # Published for search means listed: a private Thing (issue 22 #5) is searched by its creator only.
    "is_published": "(t.is_published AND NOT t.is_private)",
    "is_hidden": "t.is_hidden",
    "is_wip": "t.is_wip",
    "license": "t.license",
    "category_id": "t.category_id",
    "material": "left(lower(coalesce(t.print_settings ->> 'material', '')), 50)",
    "make_count": "t.make_count",
    "added": "t.added",
    "like_count": "t.like_count",
    "popularity": "t.like_count + t.make_count + t.download_count",
}
_ORDER_COLUMNS = ("like_count", "make_count", "popularity")
# The Thing counters those columns are made of: a change to one goes through thing_counters_update.
ORDER_COUNTERS = frozenset({"like_count", "make_count", "download_count"})

# Instructions are deliberately left out: they are printing boilerplate ("0.2 mm, 20% infill") that would
# make every Thing match "print" and bloat the vectors every ranked search reads.
# One statement: the vectors, the Things' own column, and the search rows (inserted or replaced).
_INDEX_SQL = f"""
WITH src AS (
    SELECT th.id,
           setweight(to_tsvector('english', th.name), 'A')
           || setweight(to_tsvector('english', coalesce(
                  string_agg(replace(tag.name, '_', ' '), ' ' ORDER BY tt.position, tt.id), '')), 'B')
           || setweight(to_tsvector('english', th.description), 'C') AS vector
    FROM {_THING} AS th
    LEFT JOIN {ThingTag._meta.db_table} AS tt ON tt.thing_id = th.id
    LEFT JOIN {Tag._meta.db_table} AS tag ON tag.id = tt.tag_id
    WHERE th.id = ANY(%s)
    GROUP BY th.id
), t AS (
    UPDATE {_THING} AS thing SET search_vector = src.vector FROM src WHERE thing.id = src.id
    RETURNING thing.*
)
INSERT INTO {_ROW} (thing_id, vector, {", ".join(_MIRRORED)})
SELECT t.id, t.search_vector, {", ".join(_MIRRORED.values())} FROM t
ON CONFLICT (thing_id) DO UPDATE SET vector = EXCLUDED.vector,
    {", ".join(f"{column} = EXCLUDED.{column}" for column in _MIRRORED)}
"""

_SYNC_SQL = f"""
UPDATE {_ROW} AS sr SET {", ".join(f"{column} = {value}" for column, value in _MIRRORED.items())}
FROM {_THING} AS t
WHERE sr.thing_id = t.id AND t.id = ANY(%s)
"""

REINDEX_BATCH_SIZE = 2000


def _ids(thing_ids: Iterable[int]) -> list[int]:
    return sorted({int(pk) for pk in thing_ids})


def thing_index_search(*, thing_ids: Iterable[int]) -> None:
    """Recompute the weighted vector of these Things and their whole search rows, in one statement
    (no-op without PostgreSQL). Side effects: a new search generation (cached windows are stale)."""
    ids = _ids(thing_ids)
    if not ids or not full_text_search_enabled(connection):
        return
    with connection.cursor() as cursor:
        cursor.execute(_INDEX_SQL, [ids])
    search_generation_bump()


def thing_search_sync(*, thing_ids: Iterable[int]) -> None:
    """Copy these Things' visibility, filter and order columns to their search rows, in one statement:
    after a publish, a hide or unhide, a change of license, category or work-in-progress flag.

    Side effects: a new search generation (cached windows are stale)."""
    ids = _ids(thing_ids)
    if not ids or not full_text_search_enabled(connection):
        return
    with connection.cursor() as cursor:
        cursor.execute(_SYNC_SQL, [ids])
    search_generation_bump()


def thing_counters_update(things: QuerySet, **values) -> int:
    """`things.update(**values)` for Thing counters, with the search rows' order columns (like_count,
    make_count, popularity) following in the same statement. Returns the number of Things updated.

    The one way to change `like_count`, `make_count` or `download_count` (apps.things.counters calls it
    through apps.things.hooks for likes, makes and downloads): a like or a download costs no more queries
    than before the search table existed."""
    assert things.model is Thing, things.model
    if not full_text_search_enabled(connection):
        return things.update(**values)
    query = cast(UpdateQuery, things.query.chain(UpdateQuery))
    query.add_update_values(values)
    compiler = query.get_compiler(things.db)
    compiler.pre_sql_setup()  # a filter across a relation becomes `id IN (subquery)`, as update() does
    update_sql, params = compiler.as_sql()
    returning = ", ".join(
        f"{_THING}.{column}" for column in ("id", "like_count", "make_count", "download_count")
    )
    sql = f"""
        WITH t AS ({update_sql} RETURNING {returning}),
             search_rows AS (
                UPDATE {_ROW} AS sr SET {", ".join(f"{c} = {_MIRRORED[c]}" for c in _ORDER_COLUMNS)}
                FROM t WHERE sr.thing_id = t.id
             )
        SELECT count(*) FROM t
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def thing_search_forget(*, thing_ids: Iterable[int]) -> None:
    """After Things are deleted (their rows went with them, ON DELETE CASCADE): a new search generation,
    so no cached window still counts them."""
    if _ids(thing_ids):
        search_generation_bump()


def thing_index_search_all(*, batch_size: int = REINDEX_BATCH_SIZE) -> int:
    """Recompute every Thing's vector and search row, `batch_size` ids per statement (keyset, so
    memory stays flat)."""
    if not full_text_search_enabled(connection):
        return 0
    done = 0
    last_id = 0
    while True:
        ids = list(
            Thing.objects.filter(pk__gt=last_id).order_by("pk").values_list("pk", flat=True)[:batch_size]
        )
        if not ids:
            return done
        thing_index_search(thing_ids=ids)
        done += len(ids)
        last_id = ids[-1]
