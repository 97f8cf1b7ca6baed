"""Pages of GET /search/{term}/ kept rendered (issue 17), beside the ranked window cache (window.py).

A page of a public term search (no filter, no sort, no `type`: only `page` and `per_page`) asked by a
viewer who is not staff is the same for everyone: it is kept rendered, with the search generation it was
built under, the time, and each Thing on it with the version of its short form (apps.things.bodies). It
is answered again while the generation is unchanged (anything that changes what a search matches or who
may see a Thing starts a new one), while every Thing on it is at that version (a Thing changed, hidden or
unpublished sends the request the full way), and for no longer than the window itself is kept
(SEARCH_WINDOW_CACHE_SECONDS): a counter that reorders results shows as late as it does through the
window. Pages that match nothing (404) are not kept.
"""
import hashlib

from django.core.cache import cache

from apps.core.pipeline.pagination import page_params
from apps.search import window
from apps.search.selectors import search_term_clean
from apps.things import bodies

PAGE_KEY_PREFIX = "search:page:"
MAX_KEPT_PAGE = 20
TERM_MAX_LENGTH = 200


def search_page_keys(request, term) -> list[str] | None:
    """[the generation key, the page's key] when this request's page may be kept, else None."""
    if not window.window_cache_seconds() or not bodies.cache_seconds():
        return None
    query = request.GET
    if any(name not in ("page", "per_page", "access_token") for name in query):
        return None
    clean = search_term_clean(term)
    params = page_params(query)
    if not clean or len(clean) > TERM_MAX_LENGTH or params is None or params[0] > MAX_KEPT_PAGE:
        return None
    digest = hashlib.sha256(clean.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    return [window.GENERATION_KEY, f"{PAGE_KEY_PREFIX}{digest}:{params[1]}:{params[0]}"]


def search_page_cached(values: list):
    """(body, page number, pages) of the kept page if it still stands (`values`: search_page_keys')."""
    generation, entry = values
    if generation is None:
        return None
    return bodies.page_entry_current(entry, lists_version=generation, max_age=window.window_cache_seconds())


def search_page_keep(key: str, generation, results, data, page_info: dict) -> None:
    """Keep the page just answered (`data`, the Things of `results`: apps.search.selectors.ThingResults)."""
    if not isinstance(data, list) or not data or "number" not in page_info:
        return
    ids = [item.get("id") for item in data]
    entry = bodies.page_entry(ids, getattr(results, "versions", {}), data, page_info["number"],
                              page_info["num_pages"], lists_version=generation,
                              candidates=getattr(results, "candidates", None))
    if entry is not None:
        cache.set(key, entry, timeout=window.window_cache_seconds())
