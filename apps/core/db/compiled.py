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
"""
import threading
from collections.abc import Callable

from django.core.exceptions import EmptyResultSet
from django.db.models import QuerySet
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
        return self._run(compiled, compiled[1] + limit_offset_sql(limit, offset), self._bound(compiled, values))

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
        self._sql: tuple[str, tuple] | None = None

    def bound(self) -> "BoundIds":
        if self._sql is None:
            sql, params = self._build().query.get_compiler(using=self._using).as_sql()
            self._sql = (sql, tuple(params))
        return BoundIds(self._sql[0], self._sql[1], self._using)


class CompiledRows:
    """An ordered list of model instances (`build()` → a queryset with no per-request value) compiled
    once, read a page at a time with its own LIMIT/OFFSET (`bound()`: what Django's Paginator reads).
    The count is `count_source`'s (the list's CompiledIds: the same rows, a cheaper statement)."""

    def __init__(self, build: Callable[[], QuerySet], *, count_source: "CompiledIds", using: str = "default"):
        self._query = CompiledQuery(build, slots=0, using=using)
        self._count_source = count_source

    def bound(self) -> "BoundRows":
        return BoundRows(self._query, self._count_source.bound())


class BoundRows:
    def __init__(self, query: CompiledQuery, ids: "BoundIds"):
        self._query, self._ids = query, ids

    def count(self) -> int:
        return self._ids.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window):
        start, stop = _page_window(window)
        return self._query.window(max(0, stop - start), start)


def _page_window(window) -> tuple[int, int]:
    if not isinstance(window, slice) or window.step is not None or window.stop is None:
        raise TypeError("a compiled list is read a page at a time")
    return window.start or 0, window.stop


class BoundIds:
    def __init__(self, sql: str, params: tuple, using: str):
        self.sql, self.params, self.using = sql, params, using

    def count(self) -> int:
        from apps.core.pipeline.pagination import LARGE_LIST, count_cached, count_fresh, count_key

        key = count_key(self.sql, self.params)
        fresh = count_fresh(key)
        if fresh is not None:
            return fresh
        bounded = self._scalar(f"SELECT COUNT(*) FROM ({self.sql} LIMIT {int(LARGE_LIST) + 1}) AS bounded", self.params)
        if bounded <= LARGE_LIST:
            return bounded
        return count_cached(key, lambda: self._scalar(f"SELECT COUNT(*) FROM ({self.sql}) AS counted", self.params))

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window):
        start, stop = _page_window(window)
        with statement_cursor(self.using) as cursor:
            cursor.execute(self.sql + limit_offset_sql(max(0, stop - start), start), self.params)
            return [row[0] if len(row) == 1 else tuple(row) for row in cursor.fetchall()]

    def _scalar(self, sql: str, params) -> int:
        with statement_cursor(self.using) as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()[0]
