"""Every state change of a Thing: create, update, delete, publish, feature, likes and watches.

Views, admin actions and site pages all come through here. Rules live in rules.py; reads in selectors.py.
"""
from django.db import transaction
from django.db.models.functions import Lower
from django.utils import timezone

from apps.activity.likes import LikeTarget, counted_like_add, counted_like_remove, counted_likes_release_for_user
from apps.core.domain.exceptions import NotFound, PreconditionFailed, RuleViolation, ValidationFailed
from apps.core.broker.enqueue import task_enqueue_on_commit
from apps.core.domain.licenses import THING_LICENSES
from apps.accounts.models import Follow
from apps.notifications import services as notification_services
from apps.things import counters, rules, selectors
from apps.things.hooks import thing_index_forget, thing_index_sync, thing_reindex
from apps.things.models import Like, Remix, Tag, Thing, ThingTag, Watch
from apps.things.printsettings import print_settings_merge
from apps.things.events import thing_event, thing_gone_event
from apps.things.wire import user_event_dict

THING_LIKES = LikeTarget(
    like_model=Like,
    field="thing",
    event_target_type="thing",
    lock=counters.thing_lock,
    lock_many=counters.things_lock,
    count_add=lambda thing_ids, delta: counters.thing_count_add(thing_ids, "like_count", delta),
    on_added=lambda thing, user: _thing_liked(thing, user),
)


def _thing_liked(thing: Thing, user) -> None:
    """A new like, in its transaction: the thing_liked webhook event and the creator's notification
    (once per liker and Thing: unliking and liking again is not news twice, notifications_once)."""
    thing_event(thing, "thing_liked", user=lambda: user_event_dict(user))
    notification_services.notification_send(
        recipient=thing.creator, actor=user, kind="like", key=f"like:thing:{thing.pk}:{user.pk}",
        subject=thing.name, url=f"/thing:{thing.pk}",
    )

FALLBACK_LICENSE = "cc-sa"
CONTENT_FIELDS = ("name", "description", "instructions", "license", "is_wip")
# What the search vector is built from (apps.search, through hooks.thing_reindex): a change to any of
# these re-indexes the Thing.
INDEXED_FIELDS = {"name", "description", "tags"}
# What search filters by (apps.search's table copies them): a change to any of these syncs its row
# (hooks.thing_index_sync).
SEARCH_FILTER_FIELDS = {"license", "is_wip", "category", "print_settings"}


def _raise_if(errors: dict[str, list[str]]) -> None:
    if errors:
        field, messages = next(iter(errors.items()))
        raise ValidationFailed(f"{field}: {messages[0]}", errors=errors)


def _category_resolve(name, errors: dict):
    """The Category named `name`, or whose id it is (an int); None for no category (null or ""). Unknown
    names and ids go to `errors`."""
    if isinstance(name, int):
        category = selectors.category_get_by_id(name)
    elif name is None or not name.strip():
        return None
    else:
        category = selectors.category_get_by_name(name)
    if category is None:
        # Not echoed: the first message also travels in the X-Error header, which must stay ASCII.
        errors["category"] = ["No category has that name or id (use a category's full name)."]
    return category


def _tags_resolve(raw_tags, errors: dict) -> list[str]:
    names, reasons = rules.thing_tags_normalize(raw_tags)
    if reasons:
        errors["tags"] = reasons
    return names


def _tags_get_or_create(names: list[str]) -> list[Tag]:
    """The Tags of `names` in that order, creating the missing ones. An existing tag keeps its spelling."""
    if not names:
        return []

    def lookup(wanted) -> dict[str, Tag]:
        tags = Tag.objects.alias(name_lower=Lower("name")).filter(name_lower__in=[n.lower() for n in wanted])
        return {tag.name.lower(): tag for tag in tags}

    found = lookup(names)
    missing = [name for name in names if name.lower() not in found]
    if missing:
        # ON CONFLICT DO NOTHING: a concurrent request creating the same tag (any case) is not an error.
        Tag.objects.bulk_create([Tag(name=name) for name in missing], ignore_conflicts=True)
        found.update(lookup(missing))
    tags = []
    for name in names:
        tag = found.get(name.lower())
        if tag is None:  # Python's and PostgreSQL's lower() disagree on a few letters; ask the database
            tag = Tag.objects.get(name__iexact=name)
        tags.append(tag)
    return tags


def _tags_set(thing: Thing, names: list[str]) -> None:
    ThingTag.objects.filter(thing=thing).delete()
    links = [ThingTag(thing=thing, tag=tag, position=i) for i, tag in enumerate(_tags_get_or_create(names))]
    # Inserted in tag id order (their positions keep the Thing's order): each link moves its tag's kept
    # count (apps.things.counts), so two Things retagged at once lock the count rows in the same order.
    ThingTag.objects.bulk_create(sorted(links, key=lambda link: link.tag_id))


def _default_license(creator) -> str:
    # spec §2: a user's default_license may be cc-nc, which is not a Thing license.
    return creator.default_license if creator.default_license in THING_LICENSES else FALLBACK_LICENSE


@transaction.atomic
def thing_create(
    *,
    creator,
    name: str,
    license: str | None = None,
    category: str | None = None,
    description: str = "",
    instructions: str = "",
    is_wip: bool = False,
    tags=(),
    ancestors=(),
    print_settings: dict | None = None,
) -> Thing:
    """Create an unpublished Thing (spec §4.2 POST /things/) with its tags and remix links.

    `category` is a full name; `ancestors` are ids of Things the creator may see. Side effects: the
    Thing's search vector is computed in the same transaction.
    """
    errors: dict[str, list[str]] = {}
    category_obj = _category_resolve(category, errors)
    tag_names = _tags_resolve(tags, errors)
    ancestor_ids = list(dict.fromkeys(ancestors))
    if ancestor_ids:
        # Hold the ancestors until commit: a concurrent delete would otherwise break the Remix insert.
        counters.things_lock(ancestor_ids, no_key=True)
        visible = selectors.thing_ids_visible(ancestor_ids, viewer=creator)
        unknown = [i for i in ancestor_ids if i not in visible]
        if unknown:
            errors["ancestors"] = [f"No Thing with id {i} that you can see." for i in unknown]
    _raise_if(errors)
    thing = Thing.objects.create(
        creator=creator,
        name=name,
        license=license or _default_license(creator),
        category=category_obj,
        description=description,
        instructions=instructions,
        is_wip=is_wip,
        print_settings=print_settings_merge(None, print_settings),
    )
    _tags_set(thing, tag_names)
    Remix.objects.bulk_create([Remix(derivative=thing, ancestor_id=i) for i in ancestor_ids])
    thing_reindex(thing_ids=[thing.pk])
    thing_event(thing, "thing_created")
    return thing


def thing_documents_fill(*, batch: int = 1000) -> int:
    """Store the rendered description and instructions of every Thing whose stored rendering is not of
    its current texts (rows written around Thing.save(): a bulk seed, QuerySet.update(), SQL, rows from
    before the column existed, or all of them after markup.DOCUMENT_RENDERING changed). Idempotent;
    safe beside writes (a row whose texts changed meanwhile is left to its own save). Returns how many
    rows it wrote. `manage.py things_documents_fill` runs it."""
    from django.db import connection

    from apps.core.domain.markup import document_render_fresh, documents_key

    memo: dict[str, str] = {}  # instructions repeat often; bounded per batch

    def render(text: str) -> str:
        if text not in memo:
            memo[text] = document_render_fresh(text)
        return memo[text]

    table = connection.ops.quote_name(Thing._meta.db_table)
    written, last = 0, 0
    while True:
        rows = list(Thing.objects.filter(pk__gt=last).order_by("pk")
                    .values_list("pk", "description", "instructions", "documents_key")[:batch])
        if not rows:
            return written
        last = rows[-1][0]
        memo.clear()
        changed = [
            (render(description), render(instructions), key, pk, description, instructions)
            for pk, description, instructions, stored in rows
            if stored != (key := documents_key(description, instructions))
        ]
        if changed:
            with connection.cursor() as cursor:
                cursor.executemany(
                    f"UPDATE {table} SET description_html = %s, instructions_html = %s, documents_key = %s "
                    "WHERE id = %s AND description = %s AND instructions = %s",
                    changed,
                )
            written += len(changed)


@transaction.atomic
def thing_update(*, thing: Thing, data: dict, if_version: int | None = None) -> Thing:
    """Change a Thing (spec §4.2 PATCH): the fields given only; `tags` replaces every tag.

    Side effects: re-indexes the Thing for search when its name, description or tags change, and
    syncs its search row when a field search filters by changes; a thing_updated webhook event when
    anything changed.
    """
    errors: dict[str, list[str]] = {}
    category = _category_resolve(data["category"], errors) if "category" in data else None
    tag_names = _tags_resolve(data["tags"], errors) if "tags" in data else None
    _raise_if(errors)
    # The row lock serialises concurrent PATCHes: two tag replacements would otherwise both delete and
    # then collide inserting the same ThingTag.
    locked = counters.thing_get_locked(thing.pk)
    if locked is None:
        raise NotFound()  # deleted since the view read it
    if if_version is not None and locked.version != if_version:
        raise PreconditionFailed("The Thing changed since the version this request names (If-Match).")
    thing = locked
    changed = [field for field in CONTENT_FIELDS if field in data and getattr(thing, field) != data[field]]
    for field in changed:
        setattr(thing, field, data[field])
    if "print_settings" in data:  # an object merges over the current one (printsettings.py); null clears
        settings = print_settings_merge(thing.print_settings, data["print_settings"])
        if settings != thing.print_settings:
            thing.print_settings = settings
            changed.append("print_settings")
    if "category" in data and thing.category_id != (category.pk if category else None):
        thing.category = category
        changed.append("category")
    if tag_names is not None:
        current = Tag.objects.filter(thingtag__thing=thing).order_by("thingtag__position", "thingtag__id")
        if [t.lower() for t in current.values_list("name", flat=True)] != [n.lower() for n in tag_names]:
            _tags_set(thing, tag_names)
            changed.append("tags")
    if changed:
        thing.save(update_fields=[f for f in changed if f != "tags"] + ["modified"])
    if INDEXED_FIELDS.intersection(changed):
        thing_reindex(thing_ids=[thing.pk])  # the whole search row, too
    elif SEARCH_FILTER_FIELDS.intersection(changed):
        thing_index_sync(thing_ids=[thing.pk])
    if changed:
        thing_event(thing, "thing_updated", changed=sorted(changed))
    return thing


def thing_delete(*, thing: Thing, if_version: int | None = None) -> None:
    """Delete a Thing irreversibly (spec §4.2). Its likes, watches, tags and remix links go with it, and
    so does its row in every list and in search (its search row by ON DELETE CASCADE).

    Side effects: cached search windows are stale (apps.search.window); a thing_deleted webhook event
    (none for a hidden Thing: its thing_deleted went out when it was hidden)."""
    with transaction.atomic():
        if if_version is not None:  # If-Match: only the version the caller saw (under the row's lock)
            locked = counters.thing_get_locked(thing.pk)
            if locked is not None and locked.version != if_version:
                raise PreconditionFailed("The Thing changed since the version this request names (If-Match).")
        deleted, _ = Thing.objects.filter(pk=thing.pk).delete()
        thing_index_forget(thing_ids=[thing.pk])
        if deleted and not thing.is_hidden:
            thing_gone_event(thing_id=thing.pk, creator_id=thing.creator_id)


@transaction.atomic
def thing_publish(*, thing: Thing) -> Thing:
    """spec §3: unpublished → published when publishable; already published is a no-op.

    Side effects: the Thing's search row follows (apps.search), so it is searchable at once; on commit,
    a task tells the creator's followers and the remixed Things' creators (thing_published_notify).
    RuleViolation NOT_PUBLISHABLE carries the spec's `errors: [reasons]`.
    """
    locked = counters.thing_get_locked(thing.pk)
    if locked is None:
        raise NotFound()
    thing = locked
    if thing.is_published:
        return thing
    reasons = rules.thing_publish_blockers(thing)
    if reasons:
        raise RuleViolation(
            "This Thing cannot be published yet.", errors=reasons, error_type="NOT_PUBLISHABLE"
        )
    thing.is_published = True
    # The first publication date stays, should a moderator ever unpublish and the owner publish again.
    thing.published_at = thing.published_at or timezone.now()
    thing.save(update_fields=["is_published", "published_at"])
    thing_index_sync(thing_ids=[thing.pk])
    thing_event(thing, "thing_published")
    from apps.things import tasks

    task_enqueue_on_commit(tasks.thing_published_notify, args=[thing.pk])
    return thing


def thing_published_notify(*, thing_id: int) -> int:
    """Tell the creator's followers of a newly published Thing, and the creators of the Things it remixes
    (issue 26). Run by a task after thing_publish commits; safe to run twice (one notification per
    Thing and recipient). Nothing for a Thing since deleted, hidden or unpublished. Returns recipients."""
    thing = Thing.objects.filter(pk=thing_id, is_published=True, is_hidden=False).select_related("creator").first()
    if thing is None:
        return 0
    url = f"/thing:{thing.pk}"
    ancestor_creators = set(
        Remix.objects.filter(derivative=thing, ancestor__is_hidden=False).values_list("ancestor__creator_id", flat=True)
    )
    remixed = notification_services.notification_send_many(
        recipient_ids=ancestor_creators, actor=thing.creator, kind="remix", key=f"remix:{thing.pk}",
        subject=thing.name, url=url,
    )
    followers = Follow.objects.filter(followed_id=thing.creator_id).values_list("follower_id", flat=True)
    told = notification_services.notification_send_many(
        recipient_ids=list(followers), actor=thing.creator, kind="new_thing", key=f"new_thing:{thing.pk}",
        subject=thing.name, url=url,
    )
    return remixed + told


def thing_hidden_changed(*, thing: Thing) -> None:
    """After a moderator hid or unhid a Thing (admin on_hidden/on_unhidden, core.moderation): its search
    row follows, so it leaves (or returns to) search at once.

    Side effects: cached search windows are stale (apps.search.window); webhook events: thing_deleted
    when hidden (to apps the Thing is gone), thing_updated when restored."""
    with transaction.atomic():
        thing_index_sync(thing_ids=[thing.pk])
        if thing.is_hidden:
            thing_gone_event(thing_id=thing.pk, creator_id=thing.creator_id)
        else:
            thing_event(thing, "thing_updated", changed=["is_hidden"])


def thing_set_featured(*, thing: Thing, featured: bool) -> Thing:
    """Feature or unfeature a Thing (the admin's action); repeating either is a no-op.

    A conditional UPDATE: of two concurrent calls only one sets `featured_at`, so the /featured/ order
    is not reshuffled by a double click. Unpublished Things may be featured; public lists hide them.
    """
    featured_at = timezone.now() if featured else None
    updated = Thing.objects.filter(pk=thing.pk, is_featured=not featured).update(
        is_featured=featured, featured_at=featured_at
    )
    if updated:
        thing.is_featured, thing.featured_at = featured, featured_at
    else:
        thing.refresh_from_db(fields=["is_featured", "featured_at"])
    return thing


def thing_like(*, user, thing: Thing) -> None:
    """Like a Thing (spec §3); liking again is a no-op. Side effects: a `like` event for the creator, once;
    a thing_liked webhook event and a notification for the creator, once per liker (THING_LIKES.on_added).

    The Thing row is locked while the Like and `like_count` change, so the counter stays exact under
    concurrent likes and unlikes of the same Thing (apps.activity.likes).
    """
    reasons = rules.thing_like_blockers(user, thing)
    if reasons:
        raise RuleViolation(reasons[0])
    counted_like_add(THING_LIKES, item=thing, user=user)


def thing_unlike(*, user, thing: Thing) -> None:
    """Unlike a Thing (spec §3); not liking it already is fine. Same lock as thing_like.

    Side effects: the like's event is taken back, so liking again counts once (activity.event_retract)."""
    reasons = rules.thing_like_blockers(user, thing)
    if reasons:
        raise RuleViolation(reasons[0])
    counted_like_remove(THING_LIKES, item=thing, user=user)


def thing_likes_release_for_user(*, user) -> None:
    """Remove a departing user's likes and lower each liked Thing's like_count, keeping counters exact.

    A release hook of account deletion (accounts.release), inside its transaction: the cascade alone would
    delete the Like rows and leave every like_count one too high. Locks in id order, like thing_like does.
    """
    counted_likes_release_for_user(THING_LIKES, user=user)


def thing_toggle_watch(*, user, thing: Thing) -> bool:
    """spec §3 toggle-watch: watching ↔ not watching. Returns whether the user now watches the Thing."""
    with transaction.atomic():
        # The viewer's is_watched is read per request (apps.things.bodycache.thing_state), never cached.
        deleted, _ = Watch.objects.filter(user=user, thing=thing).delete()
        if deleted:
            return False
        # get_or_create: a concurrent toggle that also found nothing to delete ends on the same row.
        Watch.objects.get_or_create(user=user, thing=thing)
        return True
