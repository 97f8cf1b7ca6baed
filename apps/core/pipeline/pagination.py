"""Pagination (spec §1, docs/decisions.md: Pagination): `page` and `per_page`, a JSON array, a Link header.

Out-of-range values are clamped rather than refused, so a client walking pages never falls off the end;
values that are not numbers are a 400. An empty value is the default (the OpenAPI document's
`allowEmptyValue`); anything else must be an integer as written in ASCII digits, with an optional sign:
whitespace, `1_000` or other scripts' digits, which Python's `int()` would take, are not numbers here.
Costs one COUNT and one SELECT whatever the page size.

The total only places the `last` link, yet counting a list of ~100,000 Things costs more than the rest of
the request (make bench). So a list's COUNT looks at no more than LARGE_LIST + 1 rows; only a list longer
than that is counted in full, and that total is cached for COUNT_CACHE_SECONDS (keyed by the query) and
recounted by one request at a time while the others keep the previous total (count_cached): `last` of a
very long list may lag by that long, plus one count.
"""
import hashlib
import logging
import re
import time
from collections.abc import Callable
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from django.core.cache import cache
from django.core.exceptions import EmptyResultSet
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.utils.functional import cached_property
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from apps.core.domain.exceptions import ValidationFailed

DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100
# A page number past the end of any list (answered as its last page like any page past the end), and the
# largest whose rows' OFFSET and LIMIT a statement can still take (PostgreSQL's bigint): a view that reads
# up to a page's end before paginating (/popular/'s candidates, a page read with the token) computes them
# from the number as asked.
MAX_PAGE = (2**63 - 1) // MAX_PER_PAGE
LARGE_LIST = 1000
COUNT_CACHE_SECONDS = 30
COUNT_KEEP_SECONDS = 600  # a stale total is still answered while one request counts again
COUNT_LOCK_SECONDS = 60  # a counting request that died frees the lock after this long
COUNT_WAIT_SECONDS = 2.0

log = logging.getLogger(__name__)


Total = int | Callable[[], int] | None


class CountCachingPaginator(Paginator):
    """A paginator whose count is list_total's, or `total` when the caller knows the list's length (a
    kept count, or a callable giving it: called only if the count is needed)."""

    def __init__(self, object_list, per_page, *, total: Total = None):
        super().__init__(object_list, per_page)
        self.total = total

    @cached_property
    def count(self) -> int:
        if self.total is not None:
            return self.total() if callable(self.total) else self.total
        if not isinstance(self.object_list, QuerySet):
            return super().count
        return list_total(self.object_list)


def list_total(queryset: QuerySet) -> int:
    """The length of a list: a COUNT that looks at no more than LARGE_LIST + 1 rows, and for a longer list
    the full COUNT, cached and counted by one request at a time (the module's docstring)."""
    try:
        sql, params = queryset.query.sql_with_params()
    except EmptyResultSet:
        return 0  # .none(), or a filter that can match nothing
    key = count_key(sql, params)
    # A large list's fresh total answers without a statement; only large lists have one cached.
    fresh = count_fresh(key)
    if fresh is not None:
        return fresh
    bounded = queryset[: LARGE_LIST + 1].count()
    if bounded <= LARGE_LIST:
        return bounded
    return count_cached(key, queryset.count)


def count_key(sql: str, params) -> str:
    """The count cache's key of a list statement (its SQL and parameters)."""
    return "list-count:" + hashlib.sha256(f"{sql}|{tuple(params)!r}".encode()).hexdigest()


def count_fresh(key: str, *, known: dict | None = None) -> int | None:
    """The cached total of a large list while it is fresh, else None. `known`: cache entries the request
    already read (key → value; ApiView.prefetched), the cache's answer when it holds `key`."""
    if known is not None and key in known:
        entry = known[key]
    else:
        try:
            entry = cache.get(key)
        except Exception:  # the cache is an optimisation
            return None
    if entry is not None and time.time() - entry[1] < COUNT_CACHE_SECONDS:
        return entry[0]
    return None


def count_cached(key: str, count, *, now=time.monotonic) -> int:
    """A large list's total, counted by one request at a time (issue 17).

    The total is fresh for COUNT_CACHE_SECONDS and kept COUNT_KEEP_SECONDS. When it is stale, the request
    that takes the key's lock (cache.add) counts again while every other request keeps answering with
    the previous total; so a full COUNT (~300 ms at 100k Things) is paid by one request every 30 s, never
    by all those arriving at that moment. With no total at all (a cold cache), the others wait up to
    COUNT_WAIT_SECONDS for the counting request, then count themselves. The cache failing open (Redis
    down: every read misses, every add succeeds) means each request counts, as without a cache."""
    try:
        entry = cache.get(key)
    except Exception as exc:  # the cache is an optimisation; a count is always possible without it
        log.warning("list count cache unavailable: %s", exc)
        return count()
    stamp = time.time()
    if entry is not None and stamp - entry[1] < COUNT_CACHE_SECONDS:
        return entry[0]
    if not cache.add(key + ":lock", 1, COUNT_LOCK_SECONDS):
        if entry is not None:
            return entry[0]  # someone is counting: the previous total meanwhile
        deadline = now() + COUNT_WAIT_SECONDS
        while now() < deadline:
            time.sleep(0.05)
            entry = cache.get(key)
            if entry is not None:
                return entry[0]
        return count()
    try:
        total = count()
        cache.set(key, (total, time.time()), COUNT_KEEP_SECONDS)
    finally:
        cache.delete(key + ":lock")
    return total


class LinkHeaderPagination(BasePagination):
    page_query_param = "page"
    per_page_query_param = "per_page"

    def paginate_queryset(self, queryset, request, view=None, *, total: Total = None):
        """The page asked for. `total`: the list's length when the caller knows it (a count the database
        keeps: a tag's or a category's Things; so no COUNT is sent), or how to get it (CountCachingPaginator)."""
        per_page = _clamp(_int_param(request, self.per_page_query_param, DEFAULT_PER_PAGE), 1, MAX_PER_PAGE)
        number = _int_param(request, self.page_query_param, 1)
        paginator = CountCachingPaginator(queryset, per_page, total=total)  # counts once, lazily
        self.page = paginator.page(_clamp(number, 1, paginator.num_pages))
        self.request = request
        return list(self.page.object_list)

    def get_paginated_response(self, data):
        return Response(data, headers={"Link": self.link_header()})

    def link_header(self) -> str:
        return link_header(self.request, self.page.number, self.page.paginator.num_pages)

    def get_paginated_response_schema(self, schema):
        return schema  # the body is the bare array; the links travel in the header

    def get_schema_operation_parameters(self, view):
        return [
            _schema_parameter(self.page_query_param, "Page number, from 1 (clamped to the last page)."),
            _schema_parameter(
                self.per_page_query_param,
                f"Items per page, {DEFAULT_PER_PAGE} by default, at most {MAX_PER_PAGE}.",
            ),
        ]


def link_header(request, number: int, num_pages: int) -> str:
    """GitHub style: rel first and last always, prev and next where such a page exists."""
    links = [("first", 1)]
    if number > 1:
        links.append(("prev", number - 1))
    if number < num_pages:
        links.append(("next", number + 1))
    links.append(("last", num_pages))
    # The request's own absolute URL keeps every other query parameter (filters, per_page, callback).
    url = request.build_absolute_uri()
    param = LinkHeaderPagination.page_query_param
    # DRF's replace_query_param for each link, with the URL parsed once (a list page's first read).
    scheme, netloc, path, query, fragment = urlsplit(url)
    others = parse_qs(query, keep_blank_values=True)
    others.pop(param, None)

    def page_url(n: int) -> str:
        params = sorted({**others, param: [str(n)]}.items())
        return urlunsplit((scheme, netloc, path, urlencode(params, doseq=True), fragment))

    return ", ".join(f'<{page_url(n)}>; rel="{rel}"' for rel, n in links)


def page_params(query) -> tuple[int, int] | None:
    """(page number as asked, from 1 to MAX_PAGE; per_page clamped) from a request's query parameters, as
    LinkHeaderPagination reads them; None when one is not a number (the paginator answers 400)."""
    values = []
    for name, default in ((LinkHeaderPagination.page_query_param, 1),
                          (LinkHeaderPagination.per_page_query_param, DEFAULT_PER_PAGE)):
        raw = query.get(name)
        if raw is None or raw == "":
            values.append(default)
            continue
        number = integer_of(raw)
        if number is None:
            return None
        values.append(number)
    return _clamp(values[0], 1, MAX_PAGE), _clamp(values[1], 1, MAX_PER_PAGE)


def pagination_params_validate(request) -> None:
    """400 for a `page` or `per_page` that is not a number, also where a view answers the whole list
    (the parameters are documented for the path, so a bad value is refused the same way everywhere)."""
    _int_param(request, LinkHeaderPagination.page_query_param, 1)
    _int_param(request, LinkHeaderPagination.per_page_query_param, DEFAULT_PER_PAGE)


def _int_param(request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    number = integer_of(raw)
    if number is None:
        message = "A valid integer is required."
        raise ValidationFailed(f"{name}: {message}", errors={name: [message]})
    return number


_INTEGER = re.compile(r"[+-]?[0-9]+")


def integer_of(raw: str) -> int | None:
    """The integer a query parameter's text writes, or None when it is not one (module docstring)."""
    return int(raw) if _INTEGER.fullmatch(raw) else None


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(value, high))


def _schema_parameter(name: str, description: str) -> dict:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": {"type": "integer"},
    }
