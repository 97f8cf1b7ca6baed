"""The cached representation of a Thing (issue 17): its public body and its short form, in Redis.

Building a Thing's body costs a wide statement (creator, category, the tag names, the default image, the
viewer's flags) and its serialisation: most of an uncached detail request's time, even with the statement
compiled once (selectors._thing_statement). What that body shows is the same for every viewer but two fields, `is_liked` and
`is_watched`; so the rest is kept in the cache and only those two are looked up per request, by one
fixed statement.

- Version: every Thing has a version key (`thing-v:<id>`); an entry (`thing-body:<id>`,
  `thing-short:<id>`) is used only while it carries the current version. Every change to what a body
  shows drops the version once its transaction commits (`thing_body_changed`), so the next read builds
  the body again from committed rows. A read that raced with the change stored its entry under the old
  version, which is never read again. Both keys expire after THING_BODY_CACHE_SECONDS (a version lost
  while Redis was unreachable cannot outlive that).
- The viewer's own fields: `thing-flags:<id>:<user id>` holds one user's (is_liked, is_watched) under the
  version it was read at; a like changes the counters and a watch toggle drops the version too, so a
  user's flags are never read past their own change.
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

This module holds the keys, the versions and their invalidation (what services and hooks call); the
reads that build bodies with the serializers are apps.things.bodies.
"""
import secrets
from functools import cache as memoize

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction

from apps.core.lookups import viewer_id

VERSION_PREFIX = "thing-v:"
BODY_PREFIX = "thing-body:"
SHORT_PREFIX = "thing-short:"
# The version of every cached list page (bodies.LIST_PAGES): dropped by any change of a Thing but its
# counters (publication, visibility, moderation, featuring, deletion, content).
LISTS_VERSION_KEY = "things-lists-v"
PAGE_PREFIX = "things-page:"  # things-page:<list>:<per_page>:<page> → a rendered page (bodies)
FLAGS_PREFIX = "thing-flags:"  # thing-flags:<thing id>:<user id> → (version, is_liked, is_watched)
CREATOR_SUMMARY_FIELDS = frozenset({"username", "first_name", "last_name", "avatar"})


def cache_seconds() -> int:
    return int(getattr(settings, "THING_BODY_CACHE_SECONDS", 0))


# --- invalidation ------------------------------------------------------------------------------------


def thing_body_changed(*, thing_ids, lists: bool = True) -> None:
    """What these Things' bodies show changed: their cached entries are stale once the transaction
    commits (at once outside a transaction). `lists=False` (counters): no list's membership or order
    changed but for the popular list's, which its pages' age bounds (bodies.LIST_PAGES)."""
    if not cache_seconds():
        return
    keys = [VERSION_PREFIX + str(int(i)) for i in thing_ids if i is not None]
    if keys and lists:
        keys.append(LISTS_VERSION_KEY)
    if keys:
        transaction.on_commit(lambda: cache.delete_many(keys))


def thing_body_changed_for(**filters) -> None:
    """Every Thing matching `filters` (a creator, a category, a tag) changed."""
    if not cache_seconds():
        return
    from apps.things.models import Thing

    thing_body_changed(thing_ids=list(Thing.objects.filter(**filters).values_list("pk", flat=True)))


def flags_key(thing_id: int, user_id: int) -> str:
    return f"{FLAGS_PREFIX}{int(thing_id)}:{int(user_id)}"


def detail_keys(thing_id: int, user_id: int) -> list[str]:
    """What a cached detail read needs, in the order bodies.thing_detail_cached reads them."""
    return [VERSION_PREFIX + str(thing_id), BODY_PREFIX + str(thing_id), flags_key(thing_id, user_id)]


# --- reads -------------------------------------------------------------------------------------------


def version_for(key: str, found) -> str | None:
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
    return user_flags(thing_id, uid)


def user_flags(thing_id: int, uid: int) -> tuple[bool, bool]:
    with connection.cursor() as cursor:
        cursor.execute(_viewer_flags_sql(), [thing_id, uid, thing_id, uid])
        liked, watched = cursor.fetchone()
    return bool(liked), bool(watched)
