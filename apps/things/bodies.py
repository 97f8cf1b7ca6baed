"""Reads through the cached Thing bodies (apps.things.bodycache explains the cache): the detail body with
the viewer's own fields, and the short forms of a page of Things."""
from django.core.cache import cache

from apps.core.lookups import id_or_404
from apps.things import selectors
from apps.things.bodycache import (
    BODY_PREFIX,
    SHORT_PREFIX,
    VERSION_PREFIX,
    version_for,
    cache_seconds,
    viewer_flags,
)
from apps.things.serializers import ThingSerializer, ThingShortSerializer


def thing_detail_data(thing_id, *, viewer, request) -> dict:
    """GET /things/{id}/'s body for `viewer`: the cached public body plus the viewer's own fields, or
    (a miss, a Thing not everyone may see, the cache off) the body built as before."""
    if not cache_seconds():
        thing = selectors.thing_get_for_viewer(thing_id, viewer=viewer)
        return ThingSerializer(thing, context={"request": request}).data
    tid = id_or_404(thing_id)
    version_key, body_key = VERSION_PREFIX + str(tid), BODY_PREFIX + str(tid)
    found = cache.get_many([version_key, body_key])
    version, entry = found.get(version_key), found.get(body_key)
    if version is not None and entry is not None and entry[0] == version:
        data = dict(entry[1])
        data["is_liked"], data["is_watched"] = viewer_flags(tid, viewer)
        return data
    thing = selectors.thing_get_for_viewer(tid, viewer=viewer)
    data = ThingSerializer(thing, context={"request": request}).data
    if thing.is_published and not thing.is_hidden:
        version = version_for(version_key, version)
        if version is not None:
            public = {**data, "is_liked": False, "is_watched": False}
            cache.set(body_key, (version, public), timeout=cache_seconds())
    return data


def thing_short_list(ids: list[int], *, request=None, rows=None, public_only: bool = False) -> list[dict]:
    """The short forms (ThingShortSerializer) of these Things, in this order: cached ones from the
    cache, the others in one statement of `rows` (default: every Thing's short queryset).

    Lists choose the ids with their own visibility rule. `public_only` (search, whose ids may come from
    a window cached before a Thing was hidden or unpublished): a cached entry is used only when its
    Thing was public when it was built, which its current version guarantees it still is; the others
    are read through `rows`, the caller's visibility rule."""
    if not ids:
        return []
    version_keys = [VERSION_PREFIX + str(i) for i in ids]
    short_keys = [SHORT_PREFIX + str(i) for i in ids]
    found = cache.get_many(version_keys + short_keys)
    shorts: dict[int, dict] = {}
    missing: list[int] = []
    for tid, vkey, skey in zip(ids, version_keys, short_keys):
        version, entry = found.get(vkey), found.get(skey)
        if version is not None and entry is not None and entry[0] == version and (entry[2] or not public_only):
            shorts[tid] = entry[1]
        else:
            missing.append(tid)
    if missing:
        serializer = ThingShortSerializer(context={"request": request})
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
                store[SHORT_PREFIX + str(tid)] = (version, data, public[tid])
        if store:
            cache.set_many(store, timeout=cache_seconds())
    return [shorts[tid] for tid in ids if tid in shorts]
