"""The cached representation of a Thing (issues 17, 24): its public body and its short form, in Redis,
validated against the version the database owns.

Building a Thing's body costs a wide statement (creator, category, the tag names, the default image, the
viewer's flags) and its serialisation: most of an uncached detail request's time. What that body shows is
the same for every viewer but two fields, `is_liked` and `is_watched`; so the rest is kept in the cache,
and a read checks it against the database with one narrow statement (`thing_state`: the Thing's version,
whether everyone may see it, and the viewer's two flags).

- Version: `Thing.version`, moved by the database on every UPDATE of the Thing's row (a trigger,
  migration things.0010: saves, `QuerySet.update()`, counters, raw SQL alike), and by the one change
  event `apps.things.changes.thing_changed` (heard here) in the same transaction as a change of another
  row the body shows (images, files, the creator's name or avatar, a category's or tag's name). An entry (`thing-body:<id>`,
  `thing-short:<id>`, a kept list or search page) carries the versions it was built from and is used only
  while the database still says so. Nothing has to be deleted from Redis for a change to show: an
  invalidation cannot be lost while Redis is unreachable, and Redis coming back with old data serves
  nothing old (issue 22, finding 3). A read that raced with a change stored its entry under the version
  it read, which no longer matches.
- What else it shows: a `thingiverse` body shows its ancestors whole and tag counts, which no version
  of this Thing moves with; its entry notes them and is used only while they are unchanged (`tag_marks`
  below, apps.things.bodies: `_shown`).
- Visibility: only the body of a Thing every viewer may see (published, not hidden, not private) is
  kept, and `thing_state` says on every read whether it still is; any other Thing goes through
  selectors.thing_get_for_viewer and its 401/403/404 matrix.
- A Redis outage reads as a miss (apps.core.cache): requests build bodies as without the cache.
- Keys carry the instance's prefix (settings.CACHE_KEY_PREFIX, Django's KEY_PREFIX).

settings.THING_BODY_CACHE_SECONDS = 0 turns the cache off (versions still move: they are the ETags).

This module holds the keys, the versions and the state statement; the reads that build bodies with the
serializers are apps.things.bodies.
"""
from functools import cache as memoize

from django.conf import settings
from django.db import connection
from django.db.models import F

from apps.core.db import statement_cursor
from apps.core.db.compiled import FixedStatement, ReadWithToken
from apps.core.pipeline.lookups import viewer_id

BODY_PREFIX = "thing-body:"  # thing-body:<id> → (version, public body, rendered public body)
SHORT_PREFIX = "thing-short:"  # thing-short:<id> → (version, short form, built for a public Thing)
PAGE_PREFIX = "things-page:"  # things-page:<list>:<per_page>:<page> → a rendered page (bodies)
CREATOR_SUMMARY_FIELDS = frozenset({"username", "first_name", "last_name", "avatar"})


def cache_seconds() -> int:
    return int(getattr(settings, "THING_BODY_CACHE_SECONDS", 0))


# --- invalidation: the listener of apps.things.changes.thing_changed --------------------------------


def thing_changed_receive(sender=None, *, thing_ids=None, filters=None, **kwargs) -> None:
    """A row these Things' bodies show changed (not the Thing's own: its UPDATE moves the version by
    itself): their versions move in the emitter's transaction, so every cached entry of them, and every
    kept page showing them, is stale once it commits (membership of lists is checked against the
    database on every read: bodies)."""
    if thing_ids is not None:
        _bump(pk__in=list(thing_ids))
    elif filters:
        _bump(**filters)


def thing_changed_listen() -> None:
    from apps.things.changes import thing_changed

    thing_changed.connect(thing_changed_receive, dispatch_uid="thing-body-cache")


def _bump(**filters) -> None:
    from apps.things.models import Thing

    # The one write of `version` outside the trigger (which moves it on any UPDATE of the row anyway).
    Thing.objects.filter(**filters).update(version=F("version") + 1)


def body_key(thing_id: int) -> str:
    return BODY_PREFIX + str(int(thing_id))


def detail_keys(thing_id: int, user_id: int | None = None) -> list[str]:
    """What a cached detail read needs from Redis (bodies.thing_detail_cached reads them)."""
    return [body_key(thing_id)]


# --- reads -------------------------------------------------------------------------------------------


@memoize
def _state_sql() -> str:
    from apps.things.models import Like, Thing, Watch

    quote = connection.ops.quote_name
    return (
        f"SELECT t.version, (t.is_published AND NOT t.is_hidden AND NOT t.is_private), "
        f"EXISTS(SELECT 1 FROM {quote(Like._meta.db_table)} WHERE thing_id = t.id AND user_id = %s), "
        f"EXISTS(SELECT 1 FROM {quote(Watch._meta.db_table)} WHERE thing_id = t.id AND user_id = %s) "
        f"FROM {quote(Thing._meta.db_table)} AS t WHERE t.id = %s"
    )


def thing_state(thing_id: int, uid: int | None) -> tuple[int, bool, bool, bool] | None:
    """(version, everyone may see it, is_liked, is_watched) of the Thing as committed now, for the viewer
    `uid` (None: anonymous or an app's token, both flags False); None when there is no such Thing. One
    fixed statement on the primary key."""
    if not _state_id(thing_id):
        return None  # no such id (and none PostgreSQL's bigint could compare)
    user = -1 if uid is None else int(uid)
    with statement_cursor() as cursor:
        cursor.execute(_state_sql(), [user, user, int(thing_id)])
        return thing_state_of(cursor.fetchall())


def _state_id(thing_id) -> bool:
    return 0 < int(thing_id) < 2**63


# thing_state's statement as the authentication joins it to the token's row (its first two parameters are
# the viewer's id): a kept body's check read in the token's statement (ThingDetailView.read_with_token).
_STATE_STATEMENT = FixedStatement(_state_sql, viewer_positions=frozenset({0, 1}))


def thing_state_read_with_token(thing_id) -> ReadWithToken | None:
    """thing_state's statement for this Thing, to read with the caller's token row (None: not an id)."""
    try:
        if not _state_id(thing_id):
            return None
    except (TypeError, ValueError):
        return None
    return ReadWithToken(_STATE_STATEMENT, (-1, -1, int(thing_id)), viewer_slot=0, name="state")


def thing_state_of(rows: list) -> tuple[int, bool, bool, bool] | None:
    """thing_state's answer from its statement's rows, read alone or with the token (none: no such
    Thing)."""
    if not rows:
        return None
    row = rows[0]
    return int(row[0]), bool(row[1]), bool(row[2]), bool(row[3])


def viewer_flags(thing_id: int, viewer) -> tuple[bool, bool]:
    """(is_liked, is_watched) of this viewer: one fixed statement; none for an anonymous caller or an
    app's own token."""
    uid = viewer_id(viewer)
    if uid is None:
        return False, False
    state = thing_state(thing_id, uid)
    return (state[2], state[3]) if state is not None else (False, False)


@memoize
def _versions_sql() -> str:
    from apps.things.models import Thing

    quote = connection.ops.quote_name
    return (
        f"SELECT id, version, (is_published AND NOT is_hidden AND NOT is_private) "
        f"FROM {quote(Thing._meta.db_table)} WHERE id = ANY(%s)"
    )


def thing_versions(ids) -> dict[int, tuple[int, bool]]:
    """id → (version, everyone may see it) of these Things as committed now (missing: deleted)."""
    ids = [int(i) for i in ids]
    if not ids:
        return {}
    if connection.vendor != "postgresql":
        from apps.things.models import Thing

        rows = Thing.objects.filter(pk__in=ids).values_list("pk", "version", "is_published", "is_hidden",
                                                             "is_private")
        return {pk: (v, pub and not hid and not priv) for pk, v, pub, hid, priv in rows}
    with statement_cursor() as cursor:
        cursor.execute(_versions_sql(), [ids])
        return {int(pk): (int(v), bool(public)) for pk, v, public in cursor.fetchall()}


# --- tag counts a kept entry shows (the `thingiverse` tag objects) ------------------------------------
# A tag object carries its tag's count, which moves when another Thing is tagged, hidden or deleted: no
# version of this Thing moves with it. So an entry that shows tag objects records the (name, count) pairs
# it was rendered with, and stands only while the database still counts the same (one statement for all
# of an answer's entries). An entry with no tag object records nothing and costs nothing (`spec`).


def tag_marks(data) -> tuple[tuple[str, int], ...]:
    """(name, count) of every tag object in `data`, sorted: a Thing's body (its `tags`, its ancestors'),
    a short form, or a page of short forms. Tag objects are only there: a `spec` body's `tags` is a URL
    and its short Things have none, so for `spec` this is a few key lookups and finds nothing."""
    found: set[tuple[str, int]] = set()
    items = data if isinstance(data, list) else [data]
    for item in items:
        if not isinstance(item, dict):
            continue
        _add_tag_objects(found, item.get("tags"))
        ancestors = item.get("ancestors")
        if isinstance(ancestors, list):
            for ancestor in ancestors:
                if isinstance(ancestor, dict):
                    _add_tag_objects(found, ancestor.get("tags"))
    return tuple(sorted(found))


def _add_tag_objects(found: set, tags) -> None:
    if isinstance(tags, list):
        found.update((tag["name"], tag["count"]) for tag in tags if isinstance(tag, dict) and "count" in tag)


def tag_counts_now(names) -> dict[str, int]:
    """name → the count everyone sees now, of these tags (missing: no such tag any more)."""
    from django.db.models.functions import Coalesce

    from apps.things.counts import count_field
    from apps.things.models import Tag

    names = sorted(set(names))
    if not names:
        return {}
    return dict(Tag.objects.filter(name__in=names).values_list("name", Coalesce(F(f"counts__{count_field(None)}"), 0)))


def tag_marks_current(marks, now: dict[str, int] | None = None) -> bool:
    """Whether every tag count in `marks` is still the database's (`now`: tag_counts_now, when read already)."""
    if not marks:
        return True
    if now is None:
        now = tag_counts_now(name for name, _ in marks)
    return all(now.get(name) == count for name, count in marks)
