"""Reads through the cached Thing bodies (apps.things.bodycache explains the cache): the detail body with
the viewer's own fields, and the short forms of a page of Things."""
import time
import zlib

from django.conf import settings
from django.core.cache import cache

from apps.core.pipeline import batch
from apps.core.pipeline import wire as wire_table
from apps.core.pipeline import versions as wire_versions
from apps.core.pipeline.lookups import id_or_404, viewer_id
from apps.core.pipeline.pagination import page_params
from apps.core.pipeline.renderers import Rendered, render
from apps.core.pipeline.views import etag_in
from apps.things import selectors
from apps.things.bodycache import (
    PAGE_PREFIX,
    SHORT_PREFIX,
    body_key,
    cache_seconds,
    tag_counts_now,
    tag_marks,
    tag_marks_current,
    thing_state,
    thing_state_of,
    thing_versions,
)
from apps.things.serializers import ThingSerializer, ThingShortSerializer


def detail_keys(thing_id, request) -> list[str] | None:
    """The cache entry GET /things/{id}/ may be answered from (ApiView.cache_keys), for the request's
    wire version when it names one (the token's app's is known only after authentication: thing_detail
    then reads its own key)."""
    if not cache_seconds():
        return None
    try:
        tid = int(thing_id)
    except (TypeError, ValueError):
        return None
    named = wire_versions.header_version(request) or wire_versions.DEFAULT
    return [body_key(tid) + wire_versions.cache_suffix(named)]


def thing_detail(thing_id, *, viewer, request, cached_values, with_token=None) -> Rendered:
    """GET /things/{id}/'s body for `viewer`, rendered, with its ETag: the cached public body with the
    viewer's own fields when the database says it is current (bodycache.thing_state), else (a miss, a
    Thing not everyone may see, the cache off) built by the serializer and kept for the next reader when
    everyone may see the Thing. `cached_values(keys)`: ApiView.cached_values. Both bodies are the one
    renderer's bytes (apps.core.pipeline.renderers); the caller's pipeline adds the same headers to either.
    `with_token`: what the authentication read with the token's row (ThingDetailView.read_with_token): the
    kept body's check (bodycache.thing_state_read_with_token) when the cache is on, the Thing's detail row
    (selectors.thing_read_with_token, named "thing") when it is off; used only when read for this viewer."""
    uid = viewer_id(viewer)
    # Each wire version's body under its own key (apps.core.pipeline.versions.cache_suffix: none for `spec`).
    wire = wire_versions.of(request)
    suffix = wire_versions.cache_suffix(wire)
    read = with_token.rows_for(viewer) if with_token is not None else None
    read_name = with_token.name if with_token is not None and read is not None else None
    if cache_seconds() and read_name != "thing":
        tid = id_or_404(thing_id)
        entry = cached_values([body_key(tid) + suffix])[0]
        if entry is not None and len(entry) >= 3 and entry[2] is not None:
            # The check, read with the token's row when the authentication read that from the database.
            state = thing_state_of(read or []) if read_name == "state" else thing_state(tid, uid)
            if state is not None and state[1] and entry[0] == state[0] and _shown_current(tid, entry[1]):
                liked, watched = (state[2], state[3]) if uid is not None else (False, False)
                rendered = entry[2]
                if liked or watched:
                    rendered = rendered.replace(_NO_FLAGS, _FLAGS[liked, watched], 1)
                tag = thing_etag(state[0], liked, watched, wire, shown=entry[1])
                return Rendered(rendered, {"ETag": tag}, from_cache=True)
    thing = selectors.thing_get_for_viewer(thing_id, viewer=viewer, rows=read if read_name == "thing" else None)
    # The other Things the body shows (a wire version's `ancestors`), read before it is built: a change
    # between the two leaves an entry that the next read finds old, never a new mark on an old body.
    others = thing_shown_versions(thing.pk, wire)
    data = ThingSerializer(thing, context={"request": request}).data
    liked, watched = bool(data["is_liked"]), bool(data["is_watched"])
    if cache_seconds() and thing.is_published and not thing.is_hidden and not thing.is_private:
        public = _rendered_public({**data, "is_liked": False, "is_watched": False})
        if public is not None:
            shown = _shown(others, data)
            cache.set(body_key(thing.pk) + suffix, (thing.version, shown, public), timeout=cache_seconds())
            body = public.replace(_NO_FLAGS, _FLAGS[liked, watched], 1) if liked or watched else public
            return Rendered(body, {"ETag": thing_etag(thing.version, liked, watched, wire, shown=shown)})
    body = render(data)
    return Rendered(body, {"ETag": thing_etag(thing.version, liked, watched, wire, shown=_shown(others, data))})


# --- conditional requests (issue 24) -------------------------------------------------------------------
# A Thing's ETag is strong: its version (moved by the database on every change of what the body shows,
# bodycache), the viewer's own two fields (the only part of the body that differs between viewers), the
# wire version (the body's shape) and the release (config.release: the code that shapes it). Its data part
# is all but the release: what an If-Match holds a write to.


def thing_etag(version: int, liked: bool, watched: bool, wire_version: str = wire_versions.DEFAULT,
               shown: tuple = ()) -> str:
    """`shown`: what the body shows besides the Thing's own row (`_shown`: the other Things' versions, its
    tag counts). It changes the tag (a client's copy with an ancestor since hidden is not answered 304)
    but not its data part: a write to this Thing is not refused because another one changed."""
    data = f"{int(version)}-{int(bool(liked))}{int(bool(watched))}{wire_versions.cache_suffix(wire_version)}"
    others = f"~{zlib.crc32(repr(shown).encode()):08x}" if shown else ""
    return f'"{data}.{settings.THINGYARD_RELEASE}{others}"'


def _shown(others: tuple, data: dict) -> tuple:
    """What a body shows besides its Thing's own row: the other Things' (id, version) and the tag counts
    (bodycache.tag_marks, read from the rendered data itself), or () when it shows neither (`spec`)."""
    marks = tag_marks(data)
    return (others, marks) if others or marks else ()


def _shown_current(thing_id: int, shown) -> bool:
    """Whether what a kept body shows besides its Thing's row is still so (no statement when nothing)."""
    if not shown:
        return True
    others, marks = shown
    return (not others or selectors.thing_ancestor_versions(thing_id) == others) and tag_marks_current(marks)


def thing_body_shown(others: tuple, data: dict) -> tuple:
    """`thing_etag`'s `shown` for a body built outside the cache (after a write): `others`
    (thing_shown_versions, read before the body was built) and its tag counts."""
    batch.settle()  # the values the body reads once (its ancestors' tags) are in it before they are noted
    return _shown(others, data)


def thing_shown_versions(thing_id: int, wire_version: str) -> tuple:
    """(id, version) of the other Things a body of this wire version shows whole (`ancestors` as short
    Things under `thingiverse`), or () when it shows none: a kept body stands only while they are unchanged."""
    if not wire_table.provides(wire_version, "Thing", "ancestors"):
        return ()
    return selectors.thing_ancestor_versions(thing_id)


def thing_etag_data_in(header: str | None, etag: str) -> bool:
    """Whether an If-Match header names `etag`'s data part, by strong comparison (RFC 9110 §13.1.1: a weak
    tag never matches): the same version of the Thing for this viewer in this wire version, read under this
    release or another (an upgrade changes no Thing, so it does not refuse a write), or `*`."""
    return etag_in(header, etag, weak=False, key=_etag_data)


def _etag_data(etag: str) -> str | None:
    return etag.strip('"').partition(".")[0] if etag.startswith('"') else None  # None: not a tag


# The public body's own rendering of the viewer's fields (False for both), and each viewer's: the body is
# kept rendered with the first, and the second put in its place (a JSON text can hold that sequence once
# only, as a key of the top object: inside a string every quote is escaped).
_NO_FLAGS = b'"is_liked":false,"is_watched":false'
_FLAGS = {(liked, watched): b'"is_liked":%s,"is_watched":%s' % (b"true" if liked else b"false",
                                                               b"true" if watched else b"false")
          for liked in (False, True) for watched in (False, True)}


def _rendered_public(public: dict) -> bytes | None:
    rendered = render(public)
    return rendered if rendered.count(_NO_FLAGS) == 1 else None


def thing_short_list(
    ids: list[int], *, request=None, rows=None, public_only: bool = False, versions: dict | None = None,
    known: dict | None = None, wire_version: str | None = None,
) -> list[dict]:
    """The short forms (ThingShortSerializer) of these Things, in this order: cached ones from the
    cache when the database's version says they are current, the others in one statement of `rows`
    (default: every Thing's short queryset).

    Lists choose the ids with their own visibility rule, and may pass `known` (id → version, read by
    the same statement). Without it the versions are read in one statement (bodycache.thing_versions).
    `public_only` (search, whose ids may come from a window cached before a Thing was hidden, made private
    or unpublished): a cached entry is used only when the database says everyone may see the Thing now;
    the others are read through `rows`, the caller's visibility rule. `versions` receives id → version of
    every short form returned (what a kept page is validated by)."""
    if not ids:
        return []
    # Each wire version's short forms under their own keys: `wire_version`, else the request's.
    wire_version = wire_version or _wire_version_of(request)
    suffix = _wire_suffix(wire_version)
    if known is None:
        current = thing_versions(ids)
    else:
        current = {tid: (version, True) for tid, version in known.items()}
    short_keys = [SHORT_PREFIX + str(i) + suffix for i in ids]
    found = cache.get_many(short_keys)
    # The tag counts the kept short forms show (bodycache.tag_marks), read in one statement for all.
    counts = tag_counts_now(name for entry in found.values() if len(entry) > 3 for name, _ in entry[3])
    shorts: dict[int, dict] = {}
    missing: list[int] = []
    for tid, skey in zip(ids, short_keys):
        entry, now = found.get(skey), current.get(tid)
        if (now is not None and entry is not None and entry[0] == now[0] and (now[1] or not public_only)
                and tag_marks_current(entry[3] if len(entry) > 3 else (), counts)):
            shorts[tid] = entry[1]
            if versions is not None:
                versions[tid] = now[0]
        else:
            missing.append(tid)
    if missing:
        serializer = ThingShortSerializer(context={"request": request, "wire_version": wire_version})
        if rows is None:
            found_rows = selectors.thing_short_rows(missing)  # one statement compiled once
        else:
            found_rows = (rows() if callable(rows) else rows).filter(pk__in=missing)
        store: dict[str, tuple] = {}
        for thing in found_rows:
            data = serializer.to_representation(thing)
            shorts[thing.pk] = data
            public = thing.is_published and not thing.is_hidden and not thing.is_private
            store[SHORT_PREFIX + str(thing.pk) + suffix] = (thing.version, data, public)
            if versions is not None:
                versions[thing.pk] = thing.version
        if store:
            batch.settle()  # what the short forms read once for all (their tags), in them before they are kept
            store = {key: (*entry, tag_marks(entry[1])) for key, entry in store.items()}
            cache.set_many(store, timeout=cache_seconds())
    return [shorts[tid] for tid in ids if tid in shorts]


# --- list pages --------------------------------------------------------------------------------------
#
# A page of /newest/, /popular/ or /featured/ for a viewer who is not staff is the same for everyone: it
# is kept rendered, as (None, built at, [(id, version)], body, page number, pages). It is answered again
# only while the database agrees: for /newest/ and /featured/ the page's (id, version) pairs read again
# by the list's own statement (compiled once: a Thing published, featured, unfeatured, hidden, made
# private, deleted or changed shows on the next read), for /popular/, whose order follows counters and
# time, every Thing on it still at its version and public (bodycache.thing_versions), for at most
# POPULAR_PAGE_SECONDS. The total behind `last` is the one the page was built with (the count cache's
# own lag, apps.core.pipeline.pagination).

POPULAR_PAGE_SECONDS = 60
LIST_PAGES = {"newest": None, "featured": None, "popular": POPULAR_PAGE_SECONDS}  # name → max age (s)
MAX_CACHED_PAGE = 100  # deeper pages are read the usual way (they are rarely asked for twice)


def list_page_key(name: str, number: int, per_page: int, wire_version: str | None = None) -> str:
    return f"{PAGE_PREFIX}{name}:{per_page}:{number}{_wire_suffix(wire_version or wire_versions.DEFAULT)}"


def list_page_keys(name: str, query) -> list[str] | None:
    """The keys a cached read of this list page needs (the page), or None when it is not kept."""
    params = page_params(query)
    if params is None or params[0] > MAX_CACHED_PAGE or not cache_seconds():
        return None
    return [list_page_key(name, *params)]


def list_page_cached(name: str, values: list, query=None) -> tuple[bytes, int, int] | None:
    """(body, page number, pages) of a kept page the database says is still current, or None."""
    if not values:
        return None
    entry = values[0]
    compiled = selectors.thing_list_ids_compiled(name)
    if compiled is None:
        return page_entry_current(entry, max_age=LIST_PAGES[name])
    params = page_params(query) if query is not None else None
    if params is None:
        return None
    if entry is None or entry[0] is not None:
        return None
    number, per_page = params
    pairs = compiled.bound()[(number - 1) * per_page: number * per_page]
    if [tuple(p) for p in pairs] != [tuple(p) for p in entry[2]]:
        return None
    return _page_answer(entry)


def page_entry_current(entry, *, lists_version=None, max_age: float | None) -> tuple[bytes, int, int] | None:
    """(body, page number, pages) of a kept page (`page_entry`) if it still stands: built under this
    lists version (None: not versioned; search: its generation), at most `max_age` seconds ago (None: no
    bound), and every Thing on it, as the database says now, still at the version it was rendered at and
    visible to everyone (one statement)."""
    if entry is None or entry[0] != lists_version:
        return None
    if max_age is not None and time.time() - entry[1] > max_age:
        return None
    pairs = entry[2]
    candidates = entry[6] if len(entry) > 6 else None
    if candidates is not None:
        # A search page: the window's ids it was cut from, those everyone may see now, at their versions,
        # must be exactly the page (a Thing unhidden, published or made public again shows at once).
        current = thing_versions(candidates)
        shown = [(tid, current[tid][0]) for tid in candidates if tid in current and current[tid][1]]
        if shown != [tuple(pair) for pair in pairs]:
            return None
    elif pairs:
        current = thing_versions([tid for tid, _ in pairs])
        if any(current.get(tid) != (version, True) for tid, version in pairs):
            return None
    return _page_answer(entry)


def _page_answer(entry) -> tuple[bytes, int, int] | None:
    """A kept page's (body, page number, pages) once its Things are known current: None when a tag count
    its short forms show has moved since (page_entry's marks, checked in one statement)."""
    if not tag_marks_current(entry[7] if len(entry) > 7 else ()):
        return None
    return entry[3], entry[4], entry[5]


def page_entry(ids, versions: dict, data, number: int, num_pages: int, *, lists_version=None,
               candidates: list[int] | None = None):
    """A rendered page to keep (None when a Thing on it has no known version: it cannot be checked).
    `candidates`: the ids the page was cut from before the visibility rule (a search window's slice)."""
    if any(tid not in versions for tid in ids):
        return None
    body = render(data)  # settles what the page reads once (its tags) before its tag counts are noted
    return (lists_version, time.time(), [(tid, versions[tid]) for tid in ids], body,
            number, num_pages, list(candidates) if candidates is not None else None, tag_marks(data))


def list_page_read(name: str, request, ids_page) -> tuple[list[dict], int, int]:
    """(short forms, page number, pages) of the list `name` for this request, kept for the next reader
    when it may be. `ids_page()` reads the page the usual way: ([(id, version)], page number, pages)."""
    params = page_params(request.GET)
    pairs, number, num_pages = ids_page()
    ids = [tid for tid, _ in pairs]
    versions: dict = {}
    shorts = thing_short_list(ids, request=request, versions=versions, known=dict(pairs))
    if params is not None and params[0] <= MAX_CACHED_PAGE and len(ids) == len(shorts):
        entry = page_entry(ids, versions, shorts, number, num_pages)
        if entry is not None:
            key = list_page_key(name, params[0], params[1], wire_versions.of(request))
            cache.set(key, entry, timeout=cache_seconds())
    return shorts, number, num_pages


def _wire_version_of(request) -> str:
    return wire_versions.of(request)


def _wire_suffix(wire_version: str) -> str:
    return wire_versions.cache_suffix(wire_version)

