"""The ranked window cache of term searches, and the search generation that invalidates it (issue 17).

A term search's result window (at most RESULT_WINDOW ids, ranked) is the costly part of a search and
the same for every non-staff caller of the public search. It is kept in Redis (the Django cache) for
SEARCH_WINDOW_CACHE_SECONDS (60 s), keyed by the term, the filters and the sort, together with the
search generation it was computed under. One `get_many` reads both: a window of another generation is
stale and computed again.

Semantics (docs/decisions.md, "Search table and window cache"):
- Anything that changes what a search can match or who may see a Thing (indexing, publish, hide and
  unhide, a filter column, deletion) starts a new generation, once at once and once more on commit:
  a window computed from a snapshot taken before the commit, but stored after the first bump, carries
  the generation read before it was computed, so the second bump still makes it stale.
- Counter changes (likes, makes, downloads) do not: they reorder a window, which may lag by up to the
  cache's lifetime. The page's Things are always read from the Things table with the visibility rule,
  so a Thing deleted or hidden never shows, whatever a window says.
- Staff callers (who see hidden Things) and per-user searches (library, a user's Things) are never
  cached. A Redis outage makes every read miss (apps.core.cache.failopen.FailOpenRedisCache): searches then
  compute their window, as with the cache off.
"""
import hashlib
import json
import secrets

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

DEFAULT_SECONDS = 60
GENERATION_KEY = "search:generation"
WINDOW_KEY_PREFIX = "search:window:"


def window_cache_seconds() -> int:
    return int(getattr(settings, "SEARCH_WINDOW_CACHE_SECONDS", DEFAULT_SECONDS))


def _generation_set() -> None:
    cache.set(GENERATION_KEY, secrets.token_hex(8), timeout=None)


def search_generation_bump() -> None:
    """Every cached window is stale from now (and again when the current transaction commits)."""
    _generation_set()
    transaction.on_commit(_generation_set)


def window_key(*parts) -> str:
    digest = hashlib.sha256(json.dumps(parts, default=str, separators=(",", ":")).encode()).hexdigest()
    return WINDOW_KEY_PREFIX + digest[:40]


def window_get(key: str) -> tuple[list[int] | None, str]:
    """The cached ids under `key` if computed in the current generation, and that generation (to store
    a freshly computed window with)."""
    found = cache.get_many([GENERATION_KEY, key])
    generation = found.get(GENERATION_KEY)
    if generation is None:
        # No generation yet (a new Redis, or evicted): start one; any window stored before it is stale.
        token = secrets.token_hex(8)
        added = cache.add(GENERATION_KEY, token, timeout=None)
        generation = token if added else cache.get(GENERATION_KEY, token)
        return None, generation
    cached = found.get(key)
    if cached is not None and cached[0] == generation:
        return cached[1], generation
    return None, generation


def window_set(key: str, ids: list[int], generation: str) -> None:
    cache.set(key, (generation, ids), timeout=window_cache_seconds())
