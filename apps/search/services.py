"""Writes of the search index: the weighted tsvector kept on each Thing (name A > tags B > description C)."""
from collections.abc import Iterable

from django.db import connection

from apps.search.backend import full_text_search_enabled
from apps.things.models import Tag, Thing, ThingTag

# Instructions are deliberately left out: they are printing boilerplate ("0.2 mm, 20% infill") that would
# make every Thing match "print" and bloat the vectors every ranked search reads.
_UPDATE_SQL = f"""
UPDATE {Thing._meta.db_table} AS t
SET search_vector =
    setweight(to_tsvector('english', t.name), 'A')
    || setweight(to_tsvector('english', coalesce(src.tags, '')), 'B')
    || setweight(to_tsvector('english', t.description), 'C')
FROM (
    SELECT th.id,
           string_agg(replace(tag.name, '_', ' '), ' ' ORDER BY tt.position, tt.id) AS tags
    FROM {Thing._meta.db_table} AS th
    LEFT JOIN {ThingTag._meta.db_table} AS tt ON tt.thing_id = th.id
    LEFT JOIN {Tag._meta.db_table} AS tag ON tag.id = tt.tag_id
    WHERE th.id = ANY(%s)
    GROUP BY th.id
) AS src
WHERE t.id = src.id
"""

REINDEX_BATCH_SIZE = 2000


def thing_index_search(*, thing_ids: Iterable[int]) -> None:
    """Recompute the weighted search vector of these Things in one UPDATE (no-op without PostgreSQL)."""
    ids = sorted({int(pk) for pk in thing_ids})
    if not ids or not full_text_search_enabled(connection):
        return
    with connection.cursor() as cursor:
        cursor.execute(_UPDATE_SQL, [ids])


def thing_index_search_all(*, batch_size: int = REINDEX_BATCH_SIZE) -> int:
    """Recompute every Thing's vector, `batch_size` ids per UPDATE (keyset, so memory stays flat)."""
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
