"""Reads of search (spec §4.1 user search, §4.7): Things by relevance, users, a tag, autocomplete.

On PostgreSQL a term is matched with `websearch_to_tsquery('english', term)` against the search table
(models.SearchThing, kept by services) and ranked with `ts_rank` (name A > tags B > description C);
elsewhere (the SQLite quick start) with `icontains` on the Things (backend.full_text_search_enabled).
Thing searches return ThingResults: one query for the ordered ids (none when the public search's
window is cached: window.py), one for the page's Things.
"""
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import Case, Exists, F, IntegerField, OuterRef, Q, QuerySet, Value, When
from django.db.models.functions import Collate, Lower
from psycopg import ClientCursor

from apps.accounts.models import User
from apps.core.pipeline.api import MAX_ID, api_url
from apps.core.domain.exceptions import NotFound, ValidationFailed
from apps.core.domain.moderation import viewer_sees_hidden
from apps.search.backend import SQLITE_FTS_TABLE, full_text_search_enabled
from apps.search.models import SearchThing
from apps.search.window import window_cache_seconds, window_get, window_key, window_set
from apps.things import bodies, bodycache
from apps.things.counts import count_field
from apps.things.links import thing_public_url
from apps.things.models import Category, Tag, Thing, ThingTag
from apps.things.normalize import category_slug, tag_normalize
from apps.things.selectors import (
    TAG_NEWEST_ORDER,
    tag_get,
    thing_count_of,
    thing_public_q,
    thing_short_queryset,
    thing_visible_q,
)

SORT_RELEVANT = "relevant"
SORT_NEWEST = "newest"
SORT_POPULAR = "popular"
SORT_LIKES = "likes"
THING_SORTS = (SORT_RELEVANT, SORT_NEWEST, SORT_POPULAR, SORT_LIKES)
USER_SORTS = (SORT_RELEVANT, SORT_NEWEST)
THING_FILTERS = frozenset({"license", "category", "is_wip", "has_makes", "posted_after", "posted_before",
                           "material"})

# At most this many results per search (GitHub's search API stops at 1,000): the cost of a search is
# bounded by it, not by the catalogue. 500 keeps p95 under 50 ms at 100,000 Things (see _thing_search).
RESULT_WINDOW = 500
# A tag carried by more Things than this is found by walking an order's index (thing_search_by_tag).
TAG_READ_FIRST_MAX = 5_000
AUTOCOMPLETE_DEFAULT = 10
AUTOCOMPLETE_MAX = 20

# The expressions the migration things.0003_search_indexes indexes; keep them identical.
POPULARITY = F("like_count") + F("make_count") + F("download_count")
_THING_PREFIX_KEY = Collate(Lower("name"), "C")
_TAG_PREFIX_KEY = Collate(Lower("name"), "C")

@dataclass(frozen=True)
class SearchParams:
    """What a search request asks for beyond the term (validated by serializers.SearchQueryInput)."""

    sort: str = SORT_RELEVANT
    license: str | None = None
    category: str | None = None
    is_wip: bool | None = None
    has_makes: bool | None = None
    posted_after: object = None  # aware datetime, inclusive
    posted_before: object = None  # aware datetime, exclusive
    material: str | None = None  # print_settings.material, any case (issue 27)

    @classmethod
    def from_data(cls, data: dict) -> "SearchParams":
        return cls(**{key: value for key, value in data.items() if key in cls.__dataclass_fields__})


# --- Things ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scope:
    """Who may see which rows of a term search, as the search table's columns say it (the same rule as
    things.selectors' thing_public_q / thing_visible_q over the Thing's own columns)."""

    published_only: bool  # public search: published rows only
    creator_id: int | None = None  # library and a user's Things: that creator's rows only
    own_id: int | None = None  # the viewer, who also sees their own unpublished rows
    hidden_too: bool = False  # staff see hidden rows
    cacheable: bool = False  # the same window for every caller with this scope

    def sql(self) -> tuple[list[str], list]:
        conditions, params = [], []
        if self.published_only:
            conditions.append("is_published")
        if self.creator_id is not None:
            conditions.append("creator_id = %s")
            params.append(self.creator_id)
            if not self.published_only and self.own_id != self.creator_id:
                conditions.append("is_published")
        if not self.hidden_too:
            conditions.append("NOT is_hidden")
        return conditions, params


def thing_search(*, term: str, viewer, params: SearchParams) -> "ThingResults":
    """Published Things matching `term` (all published Things when it is empty), filtered and sorted.

    Every Thing search scopes through things.selectors' visibility rule: the window from the search
    table's copy of it, the page's Things from the Things themselves, so a Thing hidden by a moderator
    or deleted never shows, even from a cached window (window.py)."""
    visible = thing_public_q(viewer)
    staff = viewer_sees_hidden(viewer)
    scope = _Scope(published_only=True, hidden_too=staff, cacheable=not staff)
    return _thing_search(visible, scope, term=term, params=params)


def thing_search_library(*, term: str, viewer, params: SearchParams) -> "ThingResults":
    """The caller's own Things, published or not, matching `term` (all of them when it is empty)."""
    visible = thing_visible_q(viewer) & Q(creator_id=viewer.pk)
    scope = _Scope(published_only=False, creator_id=viewer.pk, own_id=viewer.pk,
                   hidden_too=viewer_sees_hidden(viewer))
    return _thing_search(visible, scope, term=term, params=params)


def thing_search_for_user(*, owner, term: str, viewer, params: SearchParams) -> "ThingResults":
    """spec §4.1: `owner`'s Things matching `term`; their unpublished ones only when the caller is `owner`."""
    visible = thing_visible_q(viewer) & Q(creator_id=owner.pk)
    scope = _Scope(published_only=False, creator_id=owner.pk, own_id=getattr(viewer, "pk", None),
                   hidden_too=viewer_sees_hidden(viewer))
    return _thing_search(visible, scope, term=term, params=params)


def thing_search_by_tag(*, tag: str, viewer, params: SearchParams) -> "ThingResults":
    """Published Things carrying `tag` (normalised as spec §2, any case); all published ones when empty."""
    visible = thing_public_q(viewer)
    if not tag:
        return _thing_search(visible, None, term="", params=params)
    try:
        # One statement on the unique lower(name) index, with the tag's kept count of the Things this
        # viewer sees (apps.things.counts); a tag no such Thing carries matches nothing.
        found = tag_get(tag, viewer=viewer)
    except NotFound:
        return ThingResults(ids=list, rows=thing_short_queryset().none())
    count = thing_count_of(found)
    unfiltered = params == SearchParams(sort=params.sort)
    order = None
    walked = unfiltered  # found by walking an index in the order (else: the tag's Things read first)
    if unfiltered and _window_order(params.sort, term="") is _NEWEST:
        # Newest first (without a term "relevant" is that too): the tag links' own index, whatever the tag
        # (apps.things.selectors.TAG_NEWEST_ORDER).
        tagged, order = Q(thingtag__tag_id=found.pk), list(TAG_NEWEST_ORDER)
    elif unfiltered and count > TAG_READ_FIRST_MAX:
        # By likes or popularity, a common tag: its id as a value, so PostgreSQL plans with the tag's
        # frequency (its statistics) and walks the order's index to the page. (A subquery on the id would
        # do the same: PostgreSQL propagates the value.)
        tagged = Q(thingtag__tag_id=found.pk)
    else:
        walked = False
        # A filtered search, or by likes or popularity a rarer tag: a subquery on the tag's name, whose
        # size PostgreSQL cannot know (it guesses a few rows), so it reads the tag's Things first and
        # sorts them: a cost that follows the tag's count. A walk of an index in the order (the tag's own
        # or the catalogue's) would cost the page's depth over the share that matches, but only if the
        # matches are spread along it: a tag whose Things are little liked is walked to through every
        # more liked Thing, and a rare filter walked through was measured twice as slow
        # (docs/performance.md, "First reads, tenth round").
        tagged = Q(thingtag__tag_id__in=Tag.objects.alias(name_lower=Lower("name"))
                   .filter(name_lower=found.name.lower()).values("pk"))
    if unfiltered:
        # The kept count is the number of matches, so a page reads its own Things in the order (LIMIT and
        # OFFSET, as /tags/{tag}/things does), never the whole window before it: in one statement where
        # an index walk finds them, their ids first where the tag's Things are read first (joined before
        # the sort, each of them would be joined to its creator and picture).
        return _thing_search(visible & tagged, None, term="", params=params, order=order,
                             total=min(count, RESULT_WINDOW), one_statement=walked)
    # Filtered: the window is read whole (its length is the total). The public one is the same for every
    # caller but staff (who see hidden Things), so it is kept as a term search's is (window.py), under the
    # search generation that a change of a Thing's tags or visibility starts anew.
    shared = not viewer_sees_hidden(viewer) and full_text_search_enabled()
    return _thing_search(visible & tagged, None, term="", params=params, order=order,
                         window_name=("tag", found.pk) if shared else None)


def _thing_search(
    visible: Q, scope: "_Scope | None", *, term: str, params: SearchParams, window_name: tuple | None = None,
    total: int | None = None, order: list | None = None, one_statement: bool = False,
) -> "ThingResults":
    """The result window (at most RESULT_WINDOW Things) in the order `params.sort` asks.

    Ranking every match of a common word (a quarter of the catalogue for "bracket") costs a read of
    each matching row, far beyond the latency budget, and so would counting them. So the matches are
    first cut to a window in an order an index serves (for relevance: the most liked), and only that
    window is ranked, counted and paged: at most RESULT_WINDOW rows whatever the catalogue's size.
    A term matching fewer Things than that is ranked exactly.

    A term on PostgreSQL reads the search table (_window_sql); without a term, or on the SQLite quick
    start, the Things themselves (ORM). The page's Things are always read with `visible`.
    `window_name`: a window without a term that is the same for every caller (a tag's), kept in the
    window cache under this name and the filters.
    `total`: the window's length when the caller knows it (a kept count) and no filter applies: a page
    then reads its own ids in the order (LIMIT and OFFSET), not the window before them, and with
    `one_statement` its Things themselves in that statement. `order`: the window's order written another
    way (the same Things in the same order; a tag's own index).
    """
    if term and full_text_search_enabled() and scope is not None:
        category_ids = _category_tree_ids(params.category) if params.category is not None else None
        return ThingResults(
            ids=lambda: _window_ids(scope, term=term, params=params, category_ids=category_ids),
            # Built when a page needs rows from the database (a page of cached short forms needs none).
            rows=lambda: thing_short_queryset().filter(visible),
            public_scope=scope.cacheable,
        )
    rows = thing_short_queryset().filter(visible)
    matches = _thing_filter(Thing.objects.filter(visible), params)
    if term:
        matches = _thing_match(matches, term)
    order = order or _window_order(params.sort, term=term)
    window = matches.order_by(*order)
    if term and params.sort == SORT_RELEVANT:
        ranked = window.annotate(search_rank=_thing_rank(term)).values_list("pk", "search_rank", "like_count")
        return ThingResults(ids=lambda: _ranked_ids(list(ranked[:RESULT_WINDOW])), rows=rows)
    ids = window.values_list("pk", flat=True)[:RESULT_WINDOW]
    if total is not None:
        if one_statement:
            def rows_slice(start: int, stop: int) -> list:
                return list(rows.order_by(*order)[start:stop])
        else:
            def rows_slice(start: int, stop: int) -> list:
                return _in_order(rows, list(window.values_list("pk", flat=True)[start:stop]))

        return ThingResults(ids=lambda: list(ids), rows=rows, total=total, rows_slice=rows_slice)
    if window_name is None:
        return ThingResults(ids=lambda: list(ids), rows=rows)
    return ThingResults(ids=lambda: _kept_window(window_name, params, params.category, lambda: list(ids)), rows=rows)


def _kept_window(name: tuple, params: SearchParams, category, compute) -> list[int]:
    """The window `compute()` returns, kept in the window cache under `name`, the filters (`category`:
    the category's tree ids, or its slug) and the sort while the search generation is unchanged."""
    if window_cache_seconds() <= 0:
        return compute()
    key = window_key(*name, params.sort, params.license, category, params.is_wip, params.has_makes,
                     params.posted_after, params.posted_before,
                     params.material.lower() if params.material else None)
    ids, generation = window_get(key)
    if ids is None:
        ids = compute()
        window_set(key, ids, generation)
    return ids


_THING_ID_TERM = re.compile(r"^\s*(?:(?:https?://[^/\s]+)?/?(?:thing:|things/))?(\d{1,18})/?\s*$", re.IGNORECASE)


def search_term_thing_id(term: str | None) -> int | None:
    """The Thing id a search term names: the id itself, or a pasted Thing page (`…/thing:42`) or API
    (`…/things/42`) URL; None for any other term."""
    match = _THING_ID_TERM.match(term or "")
    if match is None:
        return None
    value = int(match.group(1))
    return value if 0 < value <= MAX_ID else None


def _ranked_ids(rows) -> list[int]:
    """(pk, rank, like_count) rows → ids by best rank, then most liked, then newest id."""
    rows.sort(key=lambda row: (-row[1], -row[2], -row[0]))
    return [row[0] for row in rows]


# The window orders of the search table, each served by one of its partial indexes (search.0001),
# and the same order written so that no index serves it (the GIN-first statement of _window_query).
_SQL_ORDERS = {
    SORT_RELEVANT: ("like_count DESC, thing_id DESC", "like_count + 0 DESC, thing_id DESC"),
    SORT_LIKES: ("like_count DESC, thing_id DESC", "like_count + 0 DESC, thing_id DESC"),
    SORT_POPULAR: ("popularity DESC, thing_id DESC", "popularity + 0 DESC, thing_id DESC"),
    SORT_NEWEST: ("added DESC, thing_id DESC", "added + interval '0 s' DESC, thing_id DESC"),
}
# A phrase ("…"), a hyphenated word (a phrase of its parts) or an exclusion (-word): PostgreSQL's
# estimate of how many rows match is blind to adjacency and to contradictions, and was measured wrong
# by two orders of magnitude both ways at 1M Things (a 2 s walk for `dragon -dragon`, 230 ms of GIN
# for `snap-fit`, which a walk answers in 8 ms). Such terms take the bounded statements instead.
_MISESTIMATED = re.compile(r'"|(?:^|\s)-\S|\w-\w')
# Such a term is first tested against a sample, the first SAMPLE_ROWS rows of the order; the share
# that matches says whether walking on (at most WALK_ROWS_MAX rows, with a margin) or the GIN index
# will find the window sooner. Our own estimate, from the very rows the window is cut from.
SAMPLE_ROWS = 2_000
WALK_ROWS_MAX = 50_000
WALK_MARGIN = 1.5


def _window_ids(scope: _Scope, *, term: str, params: SearchParams, category_ids) -> list[int]:
    """The ranked window of a term search, from the cache when this scope's window is shared."""
    def compute() -> list[int]:
        return _window_query(scope, term=term, params=params, category_ids=category_ids)

    if not scope.cacheable:
        return compute()
    return _kept_window(("things", term), params, category_ids, compute)


def _window_query(scope: _Scope, *, term: str, params: SearchParams, category_ids) -> list[int]:
    """The matching rows the scope may see, filtered, cut to RESULT_WINDOW in an indexed order; for
    relevance, ranked (ts_rank on the window's rows only). One statement; up to three for the terms
    PostgreSQL misjudges.

    A plain term: PostgreSQL chooses from the vector column's statistics between the GIN index (a
    rare term: its matches, then their top) and a walk of the order's index that tests each row and
    stops at the window (a common term); measured right for rare and common terms alike at 1M Things.
    A term whose match count PostgreSQL misjudges (_MISESTIMATED): the first SAMPLE_ROWS rows of the
    order are tested; a window found there is the answer; else, if the share that matched promises a
    window within WALK_ROWS_MAX rows, a walk bounded to that many rows; else (or if that walk falls
    short) the GIN-first statement, whose order is written so no index serves it. No plan walks the
    whole table, and the result is the same exact window whichever statement finds it.

    Every statement goes with its values written in (client-side binding, as Django's psycopg cursor
    does by default, made explicit here): a prepared statement's generic plan could not tell a rare
    term from a common one (docs/performance.md)."""
    conditions, values = scope.sql()
    if params.license is not None:
        conditions.append("license = %s")
        values.append(params.license)
    if category_ids is not None:
        conditions.append("category_id = ANY(%s)")
        values.append(list(category_ids))
    if params.is_wip is not None:
        conditions.append("is_wip = %s")
        values.append(params.is_wip)
    if params.has_makes is not None:
        conditions.append("make_count > 0" if params.has_makes else "make_count = 0")
    if params.posted_after is not None:
        conditions.append("added >= %s")
        values.append(params.posted_after)
    if params.posted_before is not None:
        conditions.append("added < %s")
        values.append(params.posted_before)
    if params.material is not None:
        conditions.append("material = %s")
        values.append(params.material.lower())
    table = SearchThing._meta.db_table
    indexed, unindexed = _SQL_ORDERS[params.sort]
    match = "vector @@ websearch_to_tsquery('english', %s)"
    where = " AND ".join(conditions)
    relevance = params.sort == SORT_RELEVANT

    def run(window: str, window_values: list):
        if relevance:
            sql = (f"SELECT w.thing_id, ts_rank(w.vector, websearch_to_tsquery('english', %s)), w.like_count "
                   f"FROM ({window}) AS w")
            window_values = [term, *window_values]  # the rank's query comes first in the text
        else:
            sql = window.replace("SELECT thing_id, vector, like_count", "SELECT thing_id", 1)
        # Values inline (ClientCursor.mogrify): the same text is never reused with other values.
        connection.ensure_connection()
        statement = ClientCursor(connection.connection).mogrify(sql, window_values)
        with connection.cursor() as cursor:
            cursor.execute(statement)
            return cursor.fetchall()

    def walk(rows: int):
        head = f"SELECT * FROM {table} WHERE {where} ORDER BY {indexed} LIMIT {rows}"
        return run(f"SELECT thing_id, vector, like_count FROM ({head}) AS head WHERE {match} "
                   f"ORDER BY {indexed} LIMIT {RESULT_WINDOW}", [*values, term])

    def gin_first():
        return run(f"SELECT thing_id, vector, like_count FROM {table} WHERE {match} AND {where} "
                   f"ORDER BY {unindexed} LIMIT {RESULT_WINDOW}", [term, *values])

    if not _MISESTIMATED.search(term):
        rows = run(f"SELECT thing_id, vector, like_count FROM {table} WHERE {match} AND {where} "
                   f"ORDER BY {indexed} LIMIT {RESULT_WINDOW}", [term, *values])
    else:
        rows = walk(SAMPLE_ROWS)
        if len(rows) < RESULT_WINDOW:
            needed = RESULT_WINDOW * SAMPLE_ROWS / len(rows) * WALK_MARGIN if rows else None
            if needed is not None and needed <= WALK_ROWS_MAX:
                rows = walk(int(needed))
            if len(rows) < RESULT_WINDOW:
                rows = gin_first()
    return _ranked_ids(rows) if relevance else [row[0] for row in rows]


class ThingResults:
    """A search's ordered result ids (one query, at most RESULT_WINDOW of them, or none when cached),
    whose Things are loaded a slice at a time (one query per page). The paginator reads count() and one
    slice, so a search costs at most two queries and computes its window once."""

    def __init__(self, *, ids, rows, public_scope: bool = False, total: int | None = None, rows_slice=None):
        self._fetch_ids = ids
        # A known length of the window (at most RESULT_WINDOW), and `rows_slice(start, stop)`: the Things
        # of that part of the window alone, in order. With both, count() reads nothing and a page reads
        # its own Things alone.
        self._total = total
        self._rows_slice = rows_slice
        self._rows_or_builder = rows  # a QuerySet, or a callable building it
        self._ids: list[int] | None = None
        self._public_scope = public_scope
        self._cached_shorts = False
        self._wire_version: str | None = None
        self.versions: dict = {}  # id → the version of the cached short form served (bodycache)
        self.candidates: list[int] | None = None  # the window's ids of the page served from short forms

    @property
    def _rows(self) -> QuerySet:
        if callable(self._rows_or_builder):
            self._rows_or_builder = self._rows_or_builder()
        return self._rows_or_builder

    def cached_shorts_enable(self, wire_version: str | None = None) -> None:
        """The page as cached short forms (apps.things.bodycache: ThingShortSerializer's dicts, for the
        API) where current and public; the rest through `rows` (the visibility rule). Only for the
        public scope, whose page is the same for every caller."""
        self._cached_shorts = self._public_scope and bodycache.cache_seconds() > 0
        self._wire_version = wire_version  # the shapes' wire version (apps.core.pipeline.versions)

    def ids(self) -> list[int]:
        if self._ids is None:
            self._ids = list(self._fetch_ids())
        return self._ids

    def pin_first(self, thing_id: int | None) -> None:
        """Put the Thing `thing_id` first when these results' own rule lets the caller see it (the
        `thingiverse` wire's id search: a term that is a Thing's id or page URL)."""
        if thing_id is None or not self._rows.filter(pk=thing_id).exists():
            return
        ids = self.ids()
        self._ids = [thing_id] + [pk for pk in ids if pk != thing_id]

    def count(self) -> int:
        if self._ids is None and self._total is not None:
            return self._total
        return len(self.ids())

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, key):
        if not isinstance(key, slice):
            return self[key : key + 1][0]
        if self._ids is None and self._rows_slice is not None and key.step is None:
            start, stop, _ = key.indices(self.count())
            return self._rows_slice(start, stop) if stop > start else []
        ids = self.ids()[key]
        if not ids:
            return []
        if self._cached_shorts:
            self.candidates = list(ids)  # what a kept page is validated by (apps.search.keptpages)
            return bodies.thing_short_list(
                ids, rows=lambda: self._rows, public_only=True, versions=self.versions, wire_version=self._wire_version
            )
        return _in_order(self._rows, ids)

    def __iter__(self):
        return iter(self[:])


def _in_order(rows: QuerySet, ids: list[int]) -> list:
    """The Things of `rows` with these ids, in the ids' order (one statement; none for no ids)."""
    if not ids:
        return []
    by_id = {thing.pk: thing for thing in rows.filter(pk__in=ids)}
    return [by_id[pk] for pk in ids if pk in by_id]


def _thing_match(qs: QuerySet, term: str) -> QuerySet:
    if full_text_search_enabled():
        # websearch syntax: "quoted phrases", `or`, `-excluded`; it never raises on odd input.
        return qs.filter(search_vector=_ts_query(term))
    words = search_words(term)
    if not words:
        return qs.none()
    for word in words:
        # Substrings as before, plus the quick start's stemming index ("brackets" finds "Bracket").
        qs = qs.filter(
            Q(name__icontains=word) | Q(description__icontains=word) | _in_tags(word) | Q(pk__in=_fts_ids(word))
        )
    return qs


FTS_TABLE = SQLITE_FTS_TABLE  # SQLite only (backend.sqlite_fts_ensure): FTS5 with the Porter stemmer
FTS_IDS_MAX = 10_000


def _fts_ids(word: str) -> list[int]:
    """Ids of the Things whose name or description holds `word` or a word of the same stem, from the
    SQLite quick start's FTS5 index; [] where there is none (another vendor, or not migrated)."""
    if connection.vendor != "sqlite":
        return []
    phrase = '"' + word.replace('"', '""') + '"'  # one FTS5 string: no query syntax from the user
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s LIMIT {FTS_IDS_MAX}", [phrase])
            return [row[0] for row in cursor.fetchall()]
    except Exception:  # noqa: BLE001 - an FTS syntax corner or a missing table: substring matching stays
        return []


# --- "Did you mean" (issue 26) -----------------------------------------------------------------------

SUGGEST_WORDS_MAX = 6  # longer terms are sentences, not typos
SUGGEST_CUTOFF = 0.75  # difflib's ratio: "calibraton" ~ "calibration" 0.95, "bracket" ~ "basket" 0.77
SUGGEST_CANDIDATES = 30
_WORD = re.compile(r"[^\W_]{3,}")


def search_suggestion(*, term: str, viewer=None) -> str:
    """A corrected term when a word of `term` matches no public Thing and a word of a public Thing's
    name or of a tag is close to it ("calibraton" → "calibration"); "" when there is nothing better.

    Read only for a search that found nothing. PostgreSQL: candidates from the trigram indexes of
    search.0002 (`<%`: word similarity), the closest word chosen with difflib; SQLite: the vocabulary of
    the newest public names and tags (a quick start holds few)."""
    words = search_words(term)
    if not words or len(words) > SUGGEST_WORDS_MAX:
        return ""
    corrected, changed = [], False
    for word in words:
        lowered = word.lower()
        if len(lowered) < 3 or _word_matches(lowered, viewer):
            corrected.append(word)
            continue
        best = _closest_word(lowered, viewer)
        if best and best != lowered:
            corrected.append(best)
            changed = True
        else:
            corrected.append(word)
    return " ".join(corrected) if changed else ""


def _public_tags(viewer) -> QuerySet:
    """Tags a public Thing carries: a draft's or a hidden Thing's tags never become a suggestion."""
    return Tag.objects.filter(**{f"counts__{count_field(viewer)}__gt": 0})  # the kept count (apps.things.counts)


def _word_matches(word: str, viewer) -> bool:
    return _thing_match(Thing.objects.filter(thing_public_q(viewer)), word).exists()


def _closest_word(word: str, viewer) -> str:
    import difflib

    if full_text_search_enabled():
        names = list(
            Thing.objects.filter(thing_public_q(viewer))
            .extra(where=["%s <%% lower(name)"], params=[word])  # noqa: S610 - a bound value
            .values_list("name", flat=True)[:SUGGEST_CANDIDATES]
        )
        names += list(
            _public_tags(viewer).extra(where=["%s <%% lower(name)"], params=[word])  # noqa: S610 - bound
            .values_list("name", flat=True)[:SUGGEST_CANDIDATES]
        )
    else:
        names = list(
            Thing.objects.filter(thing_public_q(viewer)).order_by("-id").values_list("name", flat=True)[:5000]
        )
        names += list(_public_tags(viewer).order_by("-id").values_list("name", flat=True)[:5000])
    vocabulary = {found.lower() for name in names for found in _WORD.findall(name.replace("_", " "))}
    vocabulary.discard(word)
    close = difflib.get_close_matches(word, sorted(vocabulary), n=1, cutoff=SUGGEST_CUTOFF)
    return close[0] if close else ""


def _thing_rank(term: str):
    """Higher is better: ts_rank with the default weights (A 1.0, B 0.4, C 0.2); for a single word any
    name match outranks any tag-only match, which outranks any description-only match."""
    if full_text_search_enabled():
        return SearchRank(F("search_vector"), _ts_query(term))
    # The substring fallback: name 4, tag 2, description 1, per word.
    rank: Any = Value(0)
    for word in search_words(term):
        rank = rank + Case(
            When(name__icontains=word, then=Value(4)),
            When(_in_tags(word), then=Value(2)),
            default=Value(1),
            output_field=IntegerField(),
        )
    return rank


def _ts_query(term: str) -> SearchQuery:
    return SearchQuery(term, search_type="websearch", config="english")


def _in_tags(word: str) -> Exists:
    tags = ThingTag.objects.filter(thing_id=OuterRef("pk"), tag__name__icontains=word.replace(" ", "_"))
    return Exists(tags)


def search_words(term: str) -> list[str]:
    """The words of a term, without websearch operators (quotes, a leading `-`)."""
    return [word for word in (w.strip("\"'").lstrip("-") for w in term.split()) if word]


def _window_order(sort: str, *, term: str) -> list:
    """The order that picks the result window, served by an index (things.0001 / things.0003)."""
    if sort == SORT_POPULAR:
        return [POPULARITY.desc(), F("id").desc()]
    if sort == SORT_LIKES or (sort == SORT_RELEVANT and term):
        # Relevance ranks the most liked matches: the ones searchers most likely want.
        return [F("like_count").desc(), F("id").desc()]
    # newest, and "relevant" without a term: nothing to rank by.
    return _NEWEST


_NEWEST = [F("added").desc(), F("id").desc()]


def _thing_filter(qs: QuerySet, params: SearchParams) -> QuerySet:
    if params.license is not None:
        qs = qs.filter(license=params.license)
    if params.category is not None:
        qs = qs.filter(category_id__in=_category_tree_ids(params.category))
    if params.is_wip is not None:
        qs = qs.filter(is_wip=params.is_wip)
    if params.has_makes is not None:
        qs = qs.filter(make_count__gt=0) if params.has_makes else qs.filter(make_count=0)
    if params.posted_after is not None:
        qs = qs.filter(added__gte=params.posted_after)
    if params.posted_before is not None:
        qs = qs.filter(added__lt=params.posted_before)
    if params.material is not None:
        qs = qs.filter(print_settings__material__iexact=params.material)
    return qs


def _category_tree_ids(raw_slug: str) -> list[int]:
    """The category and its sub-categories (one query); an unknown one is a bad filter value (400)."""
    slug = category_slug(raw_slug)
    ids = list(Category.objects.filter(Q(slug=slug) | Q(parent__slug=slug)).values_list("pk", flat=True))
    if not ids:
        message = "Unknown category."
        raise ValidationFailed(f"category: {message}", errors={"category": [message]})
    return ids


# --- Users -------------------------------------------------------------------------------------------


def user_search(*, term: str, viewer, params: SearchParams) -> QuerySet:
    """Active users whose name, first or last name or bio contains every word of `term`.

    Relevance: the exact user name, then a user name starting with the term, then a first or last
    name match, then a bio match; ties alphabetically. Users are few next to Things, so substring
    matching on both vendors is enough.
    """
    qs = User.objects.filter(is_active=True)
    words = search_words(term)
    for word in words:
        qs = qs.filter(
            Q(username__icontains=word)
            | Q(first_name__icontains=word)
            | Q(last_name__icontains=word)
            | Q(bio__icontains=word)
        )
    if params.sort == SORT_NEWEST or not words:
        return qs.order_by("-date_joined", "-id")
    rank = Case(
        When(username__iexact=term.strip(), then=Value(4)),
        When(username__istartswith=words[0], then=Value(3)),
        When(Q(first_name__icontains=words[0]) | Q(last_name__icontains=words[0]), then=Value(2)),
        default=Value(1),
        output_field=IntegerField(),
    )
    return qs.annotate(search_rank=rank).order_by("-search_rank", Lower("username"), "id")


# --- Autocomplete ------------------------------------------------------------------------------------


def search_autocomplete(*, term: str, viewer=None, limit: int = AUTOCOMPLETE_DEFAULT) -> list[dict]:
    """Published Thing names and tag names starting with `term` (case-insensitive): at most `limit`
    items, tags first. Each side gets at least half the slots when it has that many matches. Hidden
    Things (and tags only hidden Things carry) are left out, except for staff.

    Two index range scans on PostgreSQL (things.0003: `lower(name) COLLATE "C"`), each stopping after
    `limit` entries, so a one-letter prefix costs the same as a long one.
    """
    thing_prefix = term.strip().lower()
    tag_prefix = tag_normalize(term).lower()
    things = _thing_name_prefix(thing_prefix, limit, viewer) if thing_prefix else []
    tags = _tag_name_prefix(tag_prefix, limit, viewer) if tag_prefix else []
    tag_slots = min(len(tags), max(limit // 2, limit - len(things)))
    tags = tags[:tag_slots]
    things = things[: limit - len(tags)]
    return [
        {"type": "tag", "id": name, "name": name, "url": api_url(f"tags/{quote(name)}")} for name in tags
    ] + [
        {"type": "thing", "id": pk, "name": name, "url": thing_public_url(pk)} for pk, name in things
    ]


def _thing_name_prefix(prefix: str, limit: int, viewer) -> list[tuple[int, str]]:
    # Published (the partial index things_thing_name_prefix_idx); hidden rows are filtered on the way.
    qs = Thing.objects.filter(thing_public_q(viewer))
    if full_text_search_enabled():
        qs = qs.alias(key=_THING_PREFIX_KEY).filter(_prefix_range("key", prefix)).order_by("key", "id")
    else:
        qs = qs.filter(name__istartswith=prefix).order_by(Lower("name"), "id")
    return list(qs.values_list("pk", "name")[:limit])


def _tag_name_prefix(prefix: str, limit: int, viewer) -> list[str]:
    # Only tags a published Thing carries: a draft's tags stay private (as in the catalog's tag list).
    qs = Tag.objects.filter(**{f"counts__{count_field(viewer)}__gt": 0})  # the kept count (apps.things.counts)
    if full_text_search_enabled():
        qs = qs.alias(key=_TAG_PREFIX_KEY).filter(_prefix_range("key", prefix)).order_by("key")
    else:
        qs = qs.filter(name__istartswith=prefix).order_by(Lower("name"))
    return list(qs.values_list("name", flat=True)[:limit])


def _prefix_range(field: str, prefix: str) -> Q:
    """`field` starts with `prefix`, as a range the C-collated btree serves directly: under the C
    collation strings order by code point, so the prefix's successor bounds every extension of it."""
    q = Q(**{f"{field}__gte": prefix})
    last = ord(prefix[-1]) + 1
    if 0xD800 <= last <= 0xDFFF:  # surrogates cannot be sent; the next encodable code point is U+E000
        last = 0xE000
    if last <= 0x10FFFF:
        q &= Q(**{f"{field}__lt": prefix[:-1] + chr(last)})
    return q


_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


def search_term_clean(raw: str | None) -> str:
    """A path term as matched: control characters (NUL would break the SQL driver) become spaces."""
    return _CONTROL_CHARS.sub(" ", raw or "").strip()
