"""Reads through the cached Thing bodies (apps.things.bodycache explains the cache): the detail body with
the viewer's own fields, and the short forms of a page of Things."""
import time

from django.core.cache import cache
from rest_framework.renderers import JSONRenderer

from apps.core import versions as wire_versions
from apps.core.lookups import id_or_404, viewer_id
from apps.core.pagination import page_params
from apps.core.views import Rendered
from apps.things import selectors
from apps.things.bodycache import (
    BODY_PREFIX,
    LISTS_VERSION_KEY,
    PAGE_PREFIX,
    SHORT_PREFIX,
    VERSION_PREFIX,
    cache_seconds,
    flags_key,
    version_for,
    user_flags,
)
from apps.things.serializers import ThingSerializer, ThingShortSerializer


def thing_detail_data(thing_id, *, viewer, request) -> dict:
    """GET /things/{id}/'s body for `viewer`: the cached public body plus the viewer's own fields, or
    (a miss, a Thing not everyone may see, the cache off) the body built as before."""
    if not cache_seconds():
        thing = selectors.thing_get_for_viewer(thing_id, viewer=viewer)
        return ThingSerializer(thing, context={"request": request}).data
    tid = id_or_404(thing_id)
    # Each wire version's body under its own key (apps.core.versions.cache_suffix: none for `spec`).
    version_key = VERSION_PREFIX + str(tid)
    body_key = BODY_PREFIX + str(tid) + wire_versions.cache_suffix(wire_versions.of(request))
    found = cache.get_many([version_key, body_key])
    version, entry = found.get(version_key), found.get(body_key)
    if version is not None and entry is not None and entry[0] == version:
        return _with_flags(entry[1], tid, version, viewer_id(viewer), None)
    thing = selectors.thing_get_for_viewer(tid, viewer=viewer)
    data = ThingSerializer(thing, context={"request": request}).data
    if thing.is_published and not thing.is_hidden:
        version = version_for(version_key, version)
        if version is not None:
            public = {**data, "is_liked": False, "is_watched": False}
            cache.set(body_key, (version, public, _rendered_public(public)), timeout=cache_seconds())
    return data


def thing_detail_cached(thing_id: int, *, user_id: int, values: list):
    """The detail answer from `values` (bodycache.detail_keys' values, read by apps.oauth.fastpath): the
    body as DRF renders it, with the viewer's flags, or None when the body is not cached under the current
    version (the view then builds it)."""
    version, entry, flags = values
    if version is None or entry is None or entry[0] != version:
        return None
    rendered = entry[2] if len(entry) > 2 else None
    if rendered is None:
        return _with_flags(entry[1], thing_id, version, user_id, flags)
    liked, watched = _viewer_flags(thing_id, version, user_id, flags)
    if liked or watched:
        rendered = rendered.replace(_NO_FLAGS, _FLAGS[liked, watched], 1)
    return Rendered(rendered, {})


# The public body's own rendering of the viewer's fields (False for both), and each viewer's: the body is
# kept rendered with the first, and the second put in its place (a JSON text can hold that sequence once
# only, as a key of the top object: inside a string every quote is escaped).
_NO_FLAGS = b'"is_liked":false,"is_watched":false'
_FLAGS = {(liked, watched): b'"is_liked":%s,"is_watched":%s' % (b"true" if liked else b"false",
                                                               b"true" if watched else b"false")
          for liked in (False, True) for watched in (False, True)}


def _with_flags(public: dict, thing_id: int, version, user_id: int | None, flags) -> dict:
    """The public body with the viewer's is_liked/is_watched (see _viewer_flags)."""
    data = dict(public)
    if user_id is None:
        return data  # the public body says False for both
    data["is_liked"], data["is_watched"] = _viewer_flags(thing_id, version, user_id, flags)
    return data


def _viewer_flags(thing_id: int, version, user_id: int, flags) -> tuple[bool, bool]:
    """The viewer's (is_liked, is_watched): from their cached entry `flags` when it carries the Thing's
    current version, else one statement (then kept for the next read)."""
    if flags is not None and flags[0] == version:
        return flags[1], flags[2]
    liked, watched = user_flags(thing_id, user_id)
    cache.set(flags_key(thing_id, user_id), (version, liked, watched), timeout=cache_seconds())
    return liked, watched


def _rendered_public(public: dict) -> bytes | None:
    rendered = _RENDERER.render(public)
    return rendered if rendered.count(_NO_FLAGS) == 1 else None


def thing_short_list(
    ids: list[int], *, request=None, rows=None, public_only: bool = False, versions: dict | None = None,
    wire_version: str | None = None,
) -> list[dict]:
    """The short forms (ThingShortSerializer) of these Things, in this order: cached ones from the
    cache, the others in one statement of `rows` (default: every Thing's short queryset). Each wire
    version's under its own keys: `wire_version`, else the request's (apps.core.versions).

    Lists choose the ids with their own visibility rule. `public_only` (search, whose ids may come from
    a window cached before a Thing was hidden or unpublished): a cached entry is used only when its
    Thing was public when it was built, which its current version guarantees it still is; the others
    are read through `rows`, the caller's visibility rule."""
    if not ids:
        return []
    wire_version = wire_version or _wire_version_of(request)
    suffix = _wire_suffix(wire_version)
    version_keys = [VERSION_PREFIX + str(i) for i in ids]
    short_keys = [SHORT_PREFIX + str(i) + suffix for i in ids]
    found = cache.get_many(version_keys + short_keys)
    shorts: dict[int, dict] = {}
    missing: list[int] = []
    for tid, vkey, skey in zip(ids, version_keys, short_keys):
        version, entry = found.get(vkey), found.get(skey)
        if version is not None and entry is not None and entry[0] == version and (entry[2] or not public_only):
            shorts[tid] = entry[1]
            if versions is not None:
                versions[tid] = version
        else:
            missing.append(tid)
    if missing:
        serializer = ThingShortSerializer(context={"request": request, "wire_version": wire_version})
        public, fresh = {}, {}
        if rows is None:
            rows = selectors.thing_short_queryset()  # built only on a miss: building it costs
        elif callable(rows):
            rows = rows()
        for thing in rows.filter(pk__in=missing):
            fresh[thing.pk] = serializer.to_representation(thing)
            public[thing.pk] = thing.is_published and not thing.is_hidden
        shorts.update(fresh)
        store = {}
        for tid, data in fresh.items():
            vkey = VERSION_PREFIX + str(tid)
            version = version_for(vkey, found.get(vkey))
            if version is not None:
                store[SHORT_PREFIX + str(tid) + suffix] = (version, data, public[tid])
                if versions is not None:
                    versions[tid] = version
        if store:
            cache.set_many(store, timeout=cache_seconds())
    return [shorts[tid] for tid in ids if tid in shorts]


# --- list pages --------------------------------------------------------------------------------------
#
# A page of /newest/, /popular/ or /featured/ for a viewer who is not staff is the same for everyone: it
# is kept rendered, as (lists version, built at, [(id, version)], body, page number, pages). It is
# answered again only while the lists version (bodycache.LISTS_VERSION_KEY: any change of a Thing but its
# counters drops it) and every Thing's version on it are unchanged, and, for /popular/ whose order
# follows counters and time, for at most POPULAR_PAGE_SECONDS. The total behind `last` is the one the
# page was built with (the count cache's own lag, apps.core.pagination).

POPULAR_PAGE_SECONDS = 60
LIST_PAGES = {"newest": None, "featured": None, "popular": POPULAR_PAGE_SECONDS}  # name → max age (s)
MAX_CACHED_PAGE = 100  # deeper pages are read the usual way (they are rarely asked for twice)


def list_page_key(name: str, number: int, per_page: int, wire_version: str | None = None) -> str:
    return f"{PAGE_PREFIX}{name}:{per_page}:{number}{_wire_suffix(wire_version or wire_versions.DEFAULT)}"


def list_page_keys(name: str, query) -> list[str] | None:
    """The keys a cached read of this list page needs (lists version, page), or None when it is not kept."""
    params = page_params(query)
    if params is None or params[0] > MAX_CACHED_PAGE or not cache_seconds():
        return None
    return [LISTS_VERSION_KEY, list_page_key(name, *params)]


def list_page_cached(name: str, values: list) -> tuple[bytes, int, int] | None:
    """(body, page number, pages) of a kept page still current (its Things' versions read now), or None."""
    lists_version, entry = values
    if lists_version is None:
        return None
    return page_entry_current(entry, lists_version=lists_version, max_age=LIST_PAGES[name])


def page_entry_current(entry, *, lists_version=None, max_age: float | None) -> tuple[bytes, int, int] | None:
    """(body, page number, pages) of a kept page (`page_entry`) if it still stands: built under this
    lists version (None: not versioned), at most `max_age` seconds ago (None: no bound), and every Thing
    on it still at the version it was rendered at (one read of their versions)."""
    if entry is None or entry[0] != lists_version:
        return None
    if max_age is not None and time.time() - entry[1] > max_age:
        return None
    pairs = entry[2]
    if pairs:
        found = cache.get_many([VERSION_PREFIX + str(tid) for tid, _ in pairs])
        if any(found.get(VERSION_PREFIX + str(tid)) != version for tid, version in pairs):
            return None
    return entry[3], entry[4], entry[5]


def page_entry(ids, versions: dict, data, number: int, num_pages: int, *, lists_version=None):
    """A rendered page to keep (None when a Thing on it has no known version: it cannot be checked)."""
    if any(tid not in versions for tid in ids):
        return None
    return (lists_version, time.time(), [(tid, versions[tid]) for tid in ids], _RENDERER.render(data),
            number, num_pages)


def list_page_read(name: str, request, ids_page) -> tuple[list[dict], int, int]:
    """(short forms, page number, pages) of the list `name` for this request, kept for the next reader
    when it may be. `ids_page()` reads the page the usual way: (ids, page number, pages)."""
    params = page_params(request.GET)
    lists_version = None
    if params is not None and params[0] <= MAX_CACHED_PAGE:
        lists_version = version_for(LISTS_VERSION_KEY, cache.get(LISTS_VERSION_KEY))  # before reading
    ids, number, num_pages = ids_page()
    versions: dict = {}
    shorts = thing_short_list(ids, request=request, versions=versions)
    if lists_version is not None and len(ids) == len(shorts):
        entry = page_entry(ids, versions, shorts, number, num_pages, lists_version=lists_version)
        if entry is not None and params is not None:  # lists_version is read only for a page's params
            key = list_page_key(name, params[0], params[1], wire_versions.of(request))
            cache.set(key, entry, timeout=cache_seconds())
    return shorts, number, num_pages


def _wire_version_of(request) -> str:
    return wire_versions.of(request)


def _wire_suffix(wire_version: str) -> str:
    return wire_versions.cache_suffix(wire_version)


_RENDERER = JSONRenderer()
