"""Querysets compiled to SQL once per process, their values bound per request (issue 17).

Building a wide queryset (select_related, annotations, subqueries) and compiling it to SQL cost more
than the database's own work for the Thing detail statement: about half of an uncached detail request
(docs/performance.md). Its SQL is the same for every request of one shape (an anonymous viewer, a user,
staff) but for a few values (the Thing's id, the viewer's id). So the queryset is built once with
placeholder values, compiled once, and each request runs that SQL with its own values in their place and
turns the rows into model instances as Django's ModelIterable does (select_related objects,
annotations, the field converters of the compiler that compiled it).

- A placeholder is an integer no real id can be (a large negative number per slot); it must reach the
  statement's parameters as itself, which holds for equality filters on integer columns (what this is
  used for). If the compiled parameters do not carry every placeholder the builder was given, or the
  builder answers a statement with no rows to build (an empty result), the shape is not compiled and
  every call runs the queryset as usual.
- prefetch_related is not supported (the statement is all there is): the builder must not use it
  (`supported()` tells a caller whether the database lets it do without, e.g. PostgreSQL arrays).
- A compiled statement belongs to one process and one database alias; Django's own caches (the
  connection's converters, the models) are those of that process too.

A list read a page at a time (CompiledIds, CompiledRows) chooses the ids of any page but the first in a
subquery that reads only the list's order and filter columns, and reads the page's rows for those ids
(`deferred_page`): with LIMIT and OFFSET on the whole statement, PostgreSQL read every row before the
page, and joined each to its creator and picture, so page 3,000 of /newest/ took a quarter of a second
(docs/performance.md). The first page, which skips nothing, keeps the plain statement (the subquery
would cost it about 40 µs of the database's time). An index that holds the order and the filter's
columns (`things_listed_added_idx`, migration things 0016) lets the subquery skip the rows before the page
in the index alone.
"""
import re
import threading
from functools import lru_cache
from collections.abc import Callable

from django.core.exceptions import EmptyResultSet
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.query import get_related_populators

from apps.core.db import statement_cursor

_PLACEHOLDER_BASE = -(2**62)


def placeholder(slot: int) -> int:
    """The stand-in value of slot `slot` (0, 1, …) while a shape is built."""
    return _PLACEHOLDER_BASE - slot


class StandInViewer:
    """A viewer for building a shape: the user id is a placeholder; what the shape depends on is fixed."""

    is_authenticated = True

    def __init__(self, pk: int, *, is_staff: bool):
        self.pk = self.id = pk
        self.is_staff = is_staff


class CompiledQuery:
    """`build(*placeholders)` → a QuerySet of model instances; `objects(*values)` runs it with `values`."""

    def __init__(self, build: Callable[..., QuerySet], *, slots: int, using: str = "default"):
        self._build = build
        self._slots = slots
        self._using = using
        self._lock = threading.Lock()
        self._compiled: tuple | None = None
        self._unsupported = False

    def objects(self, *values) -> list:
        compiled = self._compiled or self._compile()
        if compiled is None:
            return list(self._build(*values))
        return self._run(compiled, compiled[1], self._bound(compiled, values))

    def window(self, limit: int, offset: int, *values) -> list:
        """`objects(*values)` from `offset`, at most `limit` of them (limit_offset_sql says why the two
        are written into the statement rather than bound)."""
        compiled = self._compiled or self._compile()
        if compiled is None:
            return list(self._build(*values)[offset: offset + limit])
        return self._run(compiled, windowed_sql(compiled[1], limit, offset), self._bound(compiled, values))

    @staticmethod
    def _bound(compiled, values) -> list:
        bound = list(compiled[2])
        for index, slot in compiled[3]:
            bound[index] = values[slot]
        return bound

    def _run(self, compiled, sql: str, bound: list) -> list:
        with statement_cursor(self._using) as cursor:
            cursor.execute(sql, bound)
            rows = cursor.fetchall()
        return _instances(compiled[0], compiled[4], rows)

    def with_viewer_sql(self, values: tuple, viewer_slot: int, viewer_sql: str) -> tuple[str, list] | None:
        """This statement's SQL and parameters for `values`, with slot `viewer_slot` written as the SQL
        expression `viewer_sql` instead of bound (a column of the statement it is joined to, ReadWithToken);
        None when the shape is not compiled."""
        compiled = self._compiled or self._compile()
        if compiled is None:
            return None
        bound = self._bound(compiled, values)
        viewer_at = frozenset(index for index, slot in compiled[3] if slot == viewer_slot)
        return _viewer_written(compiled[1], bound, viewer_at, viewer_sql)

    def instances(self, rows) -> list:
        """Model instances of rows of this statement's columns read by another statement (ReadWithToken)."""
        compiled = self._compiled or self._compile()
        assert compiled is not None  # only rows of its own compiled SQL reach here
        return _instances(compiled[0], compiled[4], rows)

    def _compile(self):
        if self._unsupported:
            return None
        with self._lock:
            if self._compiled is not None:
                return self._compiled
            queryset = self._build(*(placeholder(slot) for slot in range(self._slots)))
            if queryset._prefetch_related_lookups:  # type: ignore[attr-defined]  # QuerySet internals
                self._unsupported = True
                return None
            compiler = queryset.query.get_compiler(using=self._using)
            try:
                sql, params = compiler.as_sql()
            except EmptyResultSet:
                self._unsupported = True
                return None
            positions = []
            for index, value in enumerate(params):
                if type(value) is int and _PLACEHOLDER_BASE - self._slots < value <= _PLACEHOLDER_BASE:
                    positions.append((index, _PLACEHOLDER_BASE - value))
            if {slot for _, slot in positions} != set(range(self._slots)) or compiler.klass_info is None:
                self._unsupported = True
                return None
            self._compiled = (compiler, sql, tuple(params), positions, _plan(compiler, self._using))
            return self._compiled


# A parameter (`%s`) or a literal percent sign (`%%`) in a compiled statement: split left to right, so `%%s`
# is a percent sign and an `s`.
_PLACEHOLDERS = re.compile(r"(%s|%%)")


def _viewer_written(sql: str, params, viewer_at: frozenset[int], viewer_sql: str) -> tuple[str, list] | None:
    """`sql` with each parameter whose index is in `viewer_at` written as `viewer_sql`, and the parameters
    left; None when the text's placeholders do not match the parameters."""
    text, kept, count = _viewer_text(sql, viewer_at, viewer_sql)
    if count != len(params):
        return None
    return text, [params[index] for index in kept]


@lru_cache(maxsize=256)
def _viewer_text(sql: str, viewer_at: frozenset[int], viewer_sql: str) -> tuple[str, tuple[int, ...], int]:
    """_viewer_written's text, the indexes of the parameters it keeps, and how many `sql` has: the same
    string object for every request of one statement, which psycopg needs to see to keep the statement's
    column loaders (apps.core.db.postgresql.base.KeptPreparedCursor)."""
    text, kept, index = [], [], 0
    for part in _PLACEHOLDERS.split(sql):
        if part != "%s":
            text.append(part)
            continue
        if index in viewer_at:
            text.append(viewer_sql)
        else:
            text.append("%s")
            kept.append(index)
        index += 1
    return "".join(text), tuple(kept), index


class FixedStatement:
    """A hand-written statement of fixed text, as ReadWithToken joins it (its rows come back as tuples).
    `sql()`: the text (built on first use: quoting needs the connection); `viewer_positions`: which of
    its parameters are the viewer's id."""

    def __init__(self, sql: Callable[[], str], *, viewer_positions: frozenset[int]):
        self._sql, self._viewer_positions = sql, viewer_positions

    def with_viewer_sql(self, values: tuple, viewer_slot: int, viewer_sql: str) -> tuple[str, list] | None:
        return _viewer_written(self._sql(), values, self._viewer_positions, viewer_sql)

    def instances(self, rows) -> list:
        return [tuple(row) for row in rows]


class ReadWithToken:
    """A view's first statement, read in the same statement as the caller's token row (issue 24, first
    reads): one round trip to the database instead of two for a GET whose token row is not cached.

    The view names it before authentication (ApiView.read_with_token); the authentication, when it reads
    the token's row from the database, joins this statement to it (LEFT JOIN LATERAL, the viewer's id
    taken from the token row's user column) and hands the rows back (`read`). The view then uses `rows`
    only when the viewer the authentication settled on is the one the statement was written for
    (`rows_for`): a signed-in user who is not staff, with that id. Any other caller (staff see hidden
    rows, an app's token has no user, a token that turned out unusable) or a read that did not happen
    (the row was cached, SQLite) leaves the view to run its statement the usual way.

    `query`: a CompiledQuery built for a non-staff signed-in viewer (or a FixedStatement: rows as tuples);
    `values`: its slots' values, the viewer's slot (`viewer_slot`) being a stand-in (the token decides
    it); `viewer_slot` None: the statement does not depend on the viewer (a public list's page), then any
    viewer who is not staff may use the rows; `window`: (limit, offset) of a page; `name`: which
    statement it is, for a view that names more than one."""

    def __init__(self, query: "CompiledQuery | FixedStatement", values: tuple, *, viewer_slot: int | None,
                 window: tuple[int, int] | None = None, name: str = ""):
        self.query, self.values, self.viewer_slot, self.window = query, values, viewer_slot, window
        self.name = name
        self.rows: list | None = None
        self.viewer: int | None = None

    def lateral(self, viewer_sql: str) -> tuple[str, list] | None:
        """(SQL, parameters) of the statement to join, or None (then the token is read alone)."""
        slot = self.viewer_slot if self.viewer_slot is not None else -1
        found = self.query.with_viewer_sql(self.values, slot, viewer_sql)
        if found is None:
            return None
        sql, params = found
        if self.window is not None:
            sql = windowed_sql(sql, *self.window)
        return sql, params

    def read(self, rows: list, viewer: int | None) -> None:
        """The joined columns of the statement's rows (a row of NULLs: no row), read for user `viewer`."""
        rows = [row for row in rows if row.count(None) != len(row)]
        self.rows, self.viewer = self.query.instances(rows), viewer

    def rows_for(self, viewer) -> list | None:
        """The rows read with the token if they stand for this viewer, else None. Staff never use them (the
        statement was written for a viewer who does not see hidden rows)."""
        if self.rows is None:
            return None
        signed_in = viewer is not None and getattr(viewer, "is_authenticated", False)
        if signed_in and viewer.is_staff:
            return None
        if self.viewer_slot is None:
            return self.rows
        return self.rows if signed_in and self.viewer is not None and viewer.pk == self.viewer else None


def limit_offset_sql(limit: int, offset: int) -> str:
    """` LIMIT n OFFSET m` with both numbers written into the statement (integers: nothing else can be).

    Bound as parameters they made every page of a list one prepared statement, but one that PostgreSQL
    planned again on every run (issue 24): a generic plan must assume an unknown LIMIT reads a tenth of the
    table, so its estimate always lost to the custom plan of the actual values, and a custom plan is
    planned per execution (pg_prepared_statements showed 0 generic and 22 custom plans after 22 reads of
    /newest/; planning cost 1.2 ms of the database's CPU against 0.2 ms to run it). Written in, each
    page size and offset is a statement of its own whose plan is kept per connection (a statement
    without parameters always uses its one plan; psycopg keeps the last 100 prepared per connection)."""
    return f" LIMIT {int(limit)} OFFSET {int(offset)}"


# Where the window of a deferred_page statement goes: inside its subquery, not at its end.
WINDOW_MARK = "/* page window */"


@lru_cache(maxsize=512)
def windowed_sql(sql: str, limit: int, offset: int) -> str:
    """`sql` + limit_offset_sql(limit, offset) (in a deferred_page statement, in its subquery's place), the
    same string object for every request of one page: psycopg keeps a statement's column loaders while it
    runs the same text object again (apps.core.db.postgresql.base.KeptPreparedCursor)."""
    if WINDOW_MARK in sql:
        return sql.replace(WINDOW_MARK, limit_offset_sql(limit, offset))
    return sql + limit_offset_sql(limit, offset)


def page_reads_ids_first(offset: int) -> bool:
    """Whether a page from `offset` is read by its deferred_page statement: every page but the first."""
    return offset > 0


def deferred_page(queryset: QuerySet, using: str = "default") -> QuerySet:
    """`queryset` (an ordered list, its order total) narrowed to the ids of one page of it: the ids chosen
    by the list's own filter and order in a subquery whose window windowed_sql writes in. Run without a
    window (the mark is a comment), the subquery names every id of the list, so the statement still
    answers the list; sliced as a queryset, it answers the page."""
    ids_sql, ids_params = queryset.values_list("pk").query.get_compiler(using=using).as_sql()
    page = RawSQL(f"SELECT * FROM ({ids_sql}{WINDOW_MARK}) AS page", tuple(ids_params))  # one column: the id
    return queryset.filter(pk__in=page)


class PagedByIds:
    """A list read a page at a time (what Django's Paginator reads) whose deep pages are the rows of
    `rows` whose ids `ids` chooses for that window, in one statement (`rows` filtered on a sliced
    subquery). For a list whose order and filter another table's index holds (a tag's Things: the tag
    links' partial index of shown Things), so a deep page skips the rows before it in that index alone
    instead of reading each one. `ids` must name the ids of `rows`, in `rows`' order; the rows keep their
    own filter, so an id chosen wrongly can only leave a row out, never add one. A page that skips fewer
    than `ids_first_from` rows reads `rows` as it is: the subquery costs more to build and plan than those
    few rows cost to skip. `total`: the list's length when it is kept elsewhere."""

    def __init__(self, rows: QuerySet, ids: QuerySet, *, ids_first_from: int, total: int | None = None):
        self._rows, self._ids, self._total = rows, ids, total
        self._ids_first_from = ids_first_from

    def count(self) -> int:
        return self._rows.count() if self._total is None else self._total

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window):
        start, stop = page_window(window)
        if start < self._ids_first_from:
            return self._rows[start:stop]
        return self._rows.filter(pk__in=self._ids[start:stop])

    def values_list(self, *fields, **kwargs) -> "PagedByIds":
        return PagedByIds(self._rows.values_list(*fields, **kwargs), self._ids,
                          ids_first_from=self._ids_first_from, total=self._total)


def _plan(compiler, using: str):
    """What ModelIterable works out once per queryset: the model's columns, the related populators and
    the annotations' positions."""
    select, klass_info = compiler.select, compiler.klass_info
    select_fields = klass_info["select_fields"]
    start, end = select_fields[0], select_fields[-1] + 1
    init_list = [column[0].target.attname for column in select[start:end]]
    populators = get_related_populators(klass_info, select, using)  # type: ignore[call-arg]  # stubs: a newer Django
    # The field converters, worked out once (results_iter would again for every statement run).
    converters = compiler.get_converters([column[0] for column in select[: compiler.col_count]])
    return (klass_info["model"], init_list, start, end, populators,
            dict(compiler.annotation_col_map or {}), using, converters)


def _instances(compiler, plan, rows) -> list:
    model, init_list, start, end, populators, annotations, using, converters = plan
    if compiler.has_extra_select:
        rows = [row[: compiler.col_count] for row in rows]
    if converters:
        rows = compiler.apply_converters(rows, converters)
    found = []
    for row in rows:
        obj = model.from_db(using, init_list, row[start:end])
        for populator in populators:
            populator.populate(row, obj)
        for name, position in annotations.items():
            setattr(obj, name, row[position])
        found.append(obj)
    return found


class CompiledIds:
    """An ordered list of ids (`build()` → a `values_list("pk", flat=True)` queryset with no per-request
    value; or of tuples, `values_list("pk", "version")`) compiled once; each request slices and counts it with its own LIMIT/OFFSET. `bound()` is what
    Django's Paginator reads: `count()` (through apps.core.pipeline.pagination's count cache, under the key the
    queryset itself would have) and a slice."""

    def __init__(self, build: Callable[[], QuerySet], *, using: str = "default"):
        self._build = build
        self._using = using
        self._sql: tuple[str, tuple, str, tuple[str, tuple]] | None = None

    def bound(self, *, known: dict | None = None) -> "BoundIds":
        """`known`: cache entries already read (BoundIds.count)."""
        sql, params, key, deferred = self._sql or self._compile()
        return BoundIds(sql, params, self._using, known=known, key=key, deferred=deferred)

    def count_key(self) -> str:
        """The count cache's key of this list's total (apps.core.pipeline.pagination)."""
        return (self._sql or self._compile())[2]

    def _compile(self) -> tuple[str, tuple, str, tuple[str, tuple]]:
        from apps.core.pipeline.pagination import count_key

        queryset = self._build()
        sql, params = queryset.query.get_compiler(using=self._using).as_sql()
        page_sql, page_params = deferred_page(queryset, self._using).query.get_compiler(using=self._using).as_sql()
        self._sql = (sql, tuple(params), count_key(sql, params), (page_sql, tuple(page_params)))
        return self._sql


class CompiledRows:
    """An ordered list of model instances (`build()` → a queryset with no per-request value) compiled
    once, read a page at a time with its own LIMIT/OFFSET (`bound()`: what Django's Paginator reads).
    The count is `count_source`'s (the list's CompiledIds: the same rows, a cheaper statement)."""

    def __init__(self, build: Callable[[], QuerySet], *, count_source: "CompiledIds", using: str = "default"):
        self._query = CompiledQuery(build, slots=0, using=using)
        self._deferred = CompiledQuery(lambda: deferred_page(build(), using), slots=0, using=using)
        self._count_source = count_source

    def bound(self, *, read: tuple[tuple[int, int], list] | None = None, known: dict | None = None) -> "BoundRows":
        """`read`: ((limit, offset), rows) of a page already read (ReadWithToken), answered for that window;
        `known`: cache entries already read (the count's: BoundIds.count)."""
        return BoundRows(self.page_query, self._count_source.bound(known=known), read=read)

    def page_query(self, offset: int) -> CompiledQuery:
        """The statement a page starting at `offset` is read by (the module's docstring: deferred_page)."""
        return self._deferred if page_reads_ids_first(offset) else self._query

    def read_with_token(self, limit: int, offset: int) -> ReadWithToken:
        """A page of this list to read with the caller's token row (its SQL names no viewer)."""
        return ReadWithToken(self.page_query(offset), (), viewer_slot=None, window=(limit, offset))

    def count_key(self) -> str:
        """The count cache's key of this list's total (apps.core.pipeline.pagination)."""
        return self._count_source.count_key()


class BoundRows:
    def __init__(self, query: Callable[[int], CompiledQuery], ids: "BoundIds", *, read=None):
        """`query(offset)`: the statement of a page from `offset` (CompiledRows.page_query)."""
        self._query, self._ids, self._read = query, ids, read

    def count(self) -> int:
        return self._ids.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window):
        start, stop = page_window(window)
        limit = max(0, stop - start)
        if self._read is not None:
            (read_limit, read_offset), rows = self._read
            # The same first rows of the same order: the paginator cuts the last page to the total.
            if read_offset == start and limit <= read_limit:
                return rows[:limit]
        return self._query(start).window(limit, start)


def page_window(window) -> tuple[int, int]:
    """(start, stop) of a page slice, as Django's Paginator asks for one; TypeError for anything else."""
    if not isinstance(window, slice) or window.step is not None or window.stop is None:
        raise TypeError("a compiled list is read a page at a time")
    return window.start or 0, window.stop


class BoundIds:
    def __init__(self, sql: str, params: tuple, using: str, *, known: dict | None = None, key: str,
                 deferred: tuple[str, tuple] | None = None):
        """`key`: the count cache's key of the list (CompiledIds works it out once); `deferred`: the
        statement (and its parameters) a page after the first is read by (deferred_page), else the list's own."""
        self.sql, self.params, self.using, self.known, self.key = sql, params, using, known, key
        self.deferred = deferred

    def count(self) -> int:
        """The list's total (its count cached as apps.core.pipeline.pagination caches any list's), from
        `known` (cache entries the request already read, key → value) when that holds it."""
        from apps.core.pipeline.pagination import LARGE_LIST, count_cached, count_fresh

        key = self.key
        fresh = count_fresh(key, known=self.known)
        if fresh is not None:
            return fresh
        bounded = self._scalar(f"SELECT COUNT(*) FROM ({self.sql} LIMIT {int(LARGE_LIST) + 1}) AS bounded", self.params)
        if bounded <= LARGE_LIST:
            return bounded
        return count_cached(key, lambda: self._scalar(f"SELECT COUNT(*) FROM ({self.sql}) AS counted", self.params))

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window):
        start, stop = page_window(window)
        chosen = self.deferred if page_reads_ids_first(start) else None
        sql, params = chosen if chosen is not None else (self.sql, self.params)
        with statement_cursor(self.using) as cursor:
            cursor.execute(windowed_sql(sql, max(0, stop - start), start), params)
            return [row[0] if len(row) == 1 else tuple(row) for row in cursor.fetchall()]

    def _scalar(self, sql: str, params) -> int:
        with statement_cursor(self.using) as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()[0]
