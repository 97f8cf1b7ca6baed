"""The search table: one narrow row per Thing, all a term search reads (issue 17).

A term search used to test `search_vector @@ query` on the Things table itself: a common word walked
the likes index of a table of wide rows (description, instructions, the vector, every counter), one
heap page per candidate. This table holds only what a search filters, orders and ranks by: at a
million Things 548 MB instead of the Things' 1,030 MB (the vector is most of a row), so a page holds
twice the candidates, a window reads about 30% fewer buffers, and the Things table's width (and any
column added to it later) no longer weighs on search (docs/performance.md, "Search").

Kept by `apps.search.services` alone (thing_index_search, thing_search_sync, thing_counters_update),
called by every service that changes a Thing's searchable text, visibility, filters or counters; the
row goes with its Thing through the database's ON DELETE CASCADE (migration 0001), so deleting Things,
directly or with their creator, costs no extra query. PostgreSQL only: on the SQLite quick start the
table stays empty and search matches substrings of the Things themselves (apps/search/backend.py).
"""
from django.contrib.postgres.search import SearchVectorField
from django.db import models


class SearchThing(models.Model):
    # The foreign key is declared by migration 0001 in SQL (ON DELETE CASCADE), not by Django, whose
    # cascade would cost every Thing deletion one more query.
    thing = models.OneToOneField(
        "things.Thing", primary_key=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    # Weighted name (A) > tags (B) > description (C): the Thing's own search_vector, copied.
    vector = SearchVectorField(null=True)
    # Visibility (things.selectors.thing_visible_q / thing_public_q read the same columns of the Thing);
    # `is_published` holds "published and not private" (issue 22 #5: a private Thing is not listed).
    creator_id = models.BigIntegerField()
    is_published = models.BooleanField()
    is_hidden = models.BooleanField()
    # Filters (search.selectors.SearchParams).
    is_wip = models.BooleanField()
    license = models.CharField(max_length=16)
    category_id = models.BigIntegerField(null=True)
    make_count = models.PositiveIntegerField()
    # The lower case of the Thing's print_settings.material ("" when none): the `material` filter.
    material = models.CharField(max_length=50, default="", blank=True)
    added = models.DateTimeField()
    # Orders: relevance and sort=likes walk like_count; sort=popular the sum of three counters.
    like_count = models.PositiveIntegerField()
    popularity = models.BigIntegerField()

    class Meta:
        db_table = "search_thing"
        # Partial indexes on PostgreSQL, created by migration 0001 (GIN and expression-free b-trees
        # restricted to published rows); Django's state knows none of them.

    def __str__(self):
        return f"search row of Thing {self.thing_id}"
