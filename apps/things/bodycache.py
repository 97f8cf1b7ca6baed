"""The cached representation of a Thing (issue 17): its public body and its short form, in Redis.

Building a Thing's body costs a wide statement (creator, category, the tag names, the default image and
the first file's render, each a subquery) that Django builds and compiles on every request: most of a
detail request's time. What that body shows is the same for every viewer but two fields, `is_liked` and
`is_watched`; so the rest is kept in the cache and only those two are looked up per request, by one
fixed statement.

- Version: every Thing has a version key (`thing-v:<id>`); an entry (`thing-body:<id>`,
  `thing-short:<id>`) is used only while it carries the current version. Every change to what a body
  shows drops the version once its transaction commits (`thing_body_changed`), so the next read builds
  the body again from committed rows. A read that raced with the change stored its entry under the old
  version, which is never read again. Both keys expire after THING_BODY_CACHE_SECONDS (a version lost
  while Redis was unreachable cannot outlive that).
- What drops it: a save or delete of the Thing (content, publication, privacy, moderation), its tags and
  search index (hooks.thing_reindex/thing_index_sync/thing_index_forget), its counters
  (apps.things.counters), its images and files (apps.uploads calls `thing_body_changed`), its creator's
  name or avatar, its category's or a tag's name (signals below).
- Visibility: only the body of a Thing every viewer may see (published, not hidden) is kept, so a cached
  body answers anyone; any other Thing goes through selectors.thing_get_for_viewer and its 401/403/404
  matrix as before.
- A Redis outage reads as a miss (apps.core.cache): requests build bodies as without the cache.

settings.THING_BODY_CACHE_SECONDS = 0 turns it off (the test settings do, so query-count tests count
every statement; the cache's own tests turn it on).
"""
import secrets
from functools import cache as memoize

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction

from apps.core.lookups import id_or_404, viewer_id

VERSION_PREFIX = "thing-v:"
BODY_PREFIX = "thing-body:"
SHORT_PREFIX = "thing-short:"
CREATOR_SUMMARY_FIELDS = frozenset({"username", "first_name", "last_name", "avatar"})


def cache_seconds() -> int:
    return int(getattr(settings, "THING_BODY_CACHE_SECONDS", 0))


# --- invalidation ------------------------------------------------------------------------------------


def thing_body_changed(*, thing_ids) -> None:
    """What these Things' bodies show changed: their cached entries are stale once the transaction
    commits (at once outside a transaction)."""
    if not cache_seconds():
        return
    keys = [VERSION_PREFIX + str(int(i)) for i in thing_ids if i is not None]
    if keys:
        transaction.on_commit(lambda: cache.delete_many(keys))


def thing_body_changed_for(**filters) -> None:
    """Every Thing matching `filters` (a creator, a category, a tag) changed."""
    if not cache_seconds():
        return
    from apps.things.models import Thing

    thing_body_changed(thing_ids=list(Thing.objects.filter(**filters).values_list("pk", flat=True)))


# --- reads -------------------------------------------------------------------------------------------


def _version_for(key: str, found) -> str | None:
    """The current version, a new one when there is none (None: the cache is unreachable)."""
    if found is not None:
        return found
    token = secrets.token_hex(6)
    if cache.add(key, token, timeout=cache_seconds()):
        return token
    return cache.get(key)


@memoize
def _viewer_flags_sql() -> str:
    from apps.things.models import Like, Watch

    quote = connection.ops.quote_name
    return (
        f"SELECT EXISTS(SELECT 1 FROM {quote(Like._meta.db_table)} WHERE thing_id = %s AND user_id = %s), "
        f"EXISTS(SELECT 1 FROM {quote(Watch._meta.db_table)} WHERE thing_id = %s AND user_id = %s)"
    )


def viewer_flags(thing_id: int, viewer) -> tuple[bool, bool]:
    """(is_liked, is_watched) of this viewer: one fixed statement; none for an anonymous caller or an
    app's own token."""
    uid = viewer_id(viewer)
    if uid is None:
        return False, False
    with connection.cursor() as cursor:
        cursor.execute(_viewer_flags_sql(), [thing_id, uid, thing_id, uid])
        liked, watched = cursor.fetchone()
    return bool(liked), bool(watched)


def thing_detail_data(thing_id, *, viewer, request) -> dict:
    """GET /things/{id}/'s body for `viewer`: the cached public body plus the viewer's own fields, or
    (a miss, a Thing not everyone may see, the cache off) the body built as before."""
    from apps.things import selectors
    from apps.things.serializers import ThingSerializer

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
        version = _version_for(version_key, version)
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
    from apps.things import selectors
    from apps.things.serializers import ThingShortSerializer

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
            version = _version_for(vkey, found.get(vkey))
            if version is not None:
                store[SHORT_PREFIX + str(tid)] = (version, data, public[tid])
        if store:
            cache.set_many(store, timeout=cache_seconds())
    return [shorts[tid] for tid in ids if tid in shorts]
