"""Reads of collections (spec §4.5, §4.1). Collections are public; the Things in them are filtered to
what the caller may see (published, or their own), in counts and thumbnails too."""
from django.db.models import Case, F, Func, IntegerField, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce, Lower

from apps.core.domain.exceptions import NotFound, PermissionDenied
from apps.core.pipeline.lookups import id_or_404
from apps.things.models import Thing
from apps.search.selectors import SORT_NEWEST, search_words
from apps.things.selectors import thing_list_visible, thing_short_queryset, thing_visible_q
from apps.thingcollections import rules
from apps.thingcollections.models import Collection, CollectionThing

SORTS = ("name", "date")
ORDERS = ("asc", "desc")


def _visible_entries(viewer) -> Q:
    """CollectionThing rows whose Thing `viewer` may see (things.selectors.thing_visible_q: published or
    their own, never hidden by a moderator)."""
    return thing_visible_q(viewer, prefix="thing__")


def collection_queryset(*, viewer) -> QuerySet:
    """Collections with `thing_count` and `thumbnail_thing_id` (the newest visible entry's Thing) as
    correlated subqueries, and the creator joined: one query for any number of rows."""
    entries = CollectionThing.objects.filter(_visible_entries(viewer), collection=OuterRef("pk"))
    counted = entries.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n")
    return Collection.objects.select_related("creator").annotate(
        thing_count=Coalesce(Subquery(counted, output_field=IntegerField()), Value(0)),
        thumbnail_thing_id=Subquery(entries.order_by("-added", "-id").values("thing_id")[:1]),
    )


def collection_list_latest(*, viewer) -> QuerySet:
    """spec §4.5 GET /collections/: every collection, newest first, ties by id."""
    return collection_queryset(viewer=viewer).order_by("-added", "-id")


def collection_list_for_user(*, owner, viewer) -> QuerySet:
    """spec §4.1 /users/{username}/collections: the owner's collections, newest first."""
    return collection_list_latest(viewer=viewer).filter(creator=owner)


def collection_search(*, term: str, viewer, params) -> QuerySet:
    """GET /search/{term}/?type=collections: collections whose name or description contains every
    word of `term`. Relevance: the exact name, a name starting with the term, a name containing its
    first word, then a description match; ties newest first. Without a term, or with `sort=newest`:
    newest first. Substring matching: collections are few next to Things."""
    qs = collection_queryset(viewer=viewer)
    words = search_words(term)
    for word in words:
        qs = qs.filter(Q(name__icontains=word) | Q(description__icontains=word))
    if params.sort == SORT_NEWEST or not words:
        return qs.order_by("-added", "-id")
    rank = Case(
        When(name__iexact=term.strip(), then=Value(4)),
        When(name__istartswith=term.strip(), then=Value(3)),
        When(name__icontains=words[0], then=Value(2)),
        default=Value(1),
        output_field=IntegerField(),
    )
    return qs.annotate(search_rank=rank).order_by("-search_rank", "-added", "-id")


def collection_get(collection_id, *, viewer) -> Collection:
    """404 for an unknown collection (spec §7); any collection is visible to every caller."""
    collection = collection_queryset(viewer=viewer).filter(pk=id_or_404(collection_id)).first()
    if collection is None:
        raise NotFound()
    return collection


def collection_get_own(collection_id, *, viewer) -> Collection:
    """A collection the caller may add to or remove from: 404 unknown, 403 someone else's."""
    collection = collection_get(collection_id, viewer=viewer)
    if not rules.collection_can_add_thing(viewer, collection):
        raise PermissionDenied()
    return collection


def collection_get_editable(collection_id, *, viewer, application) -> Collection:
    """A collection the caller may PATCH or DELETE: 404 unknown; 403 someone else's, or (spec §4.5)
    created by another app than the calling one."""
    collection = collection_get(collection_id, viewer=viewer)
    if not rules.collection_can_edit(viewer, collection, application=application):
        raise PermissionDenied()
    return collection


def collection_attach_thumbnails(collections, *, viewer) -> list:
    """Set `thumbnail_thing` on each collection (None when it shows no Thing): one query for the page."""
    collections = list(collections)
    wanted = {c.thumbnail_thing_id for c in collections if c.thumbnail_thing_id is not None}
    things = thing_short_queryset().in_bulk(wanted) if wanted else {}
    for collection in collections:
        collection.thumbnail_thing = things.get(collection.thumbnail_thing_id)
    return collections


def collection_list_things(*, collection, viewer, sort: str = "date", order: str = "desc") -> QuerySet:
    """spec §4.5 GET /collections/{id}/things: the Things the caller may see, by name (ignoring case)
    or by the date they were added to the collection; ties broken by id in the same direction."""
    # One join to the collection's entries, reused by the ORDER BY (index collection_entries_added_idx).
    things = thing_list_visible(viewer=viewer).filter(collection_entries__collection=collection)
    key = Lower("name") if sort == "name" else F("collection_entries__added")
    if order == "asc":
        return things.order_by(key.asc(), "id")
    return things.order_by(key.desc(), "-id")


def collection_entry_get(*, collection, thing_id) -> CollectionThing:
    """The collection's entry for a Thing, visible or not (its owner may always take it out); 404 if the
    Thing is not in the collection."""
    entry = CollectionThing.objects.filter(collection=collection, thing_id=id_or_404(thing_id)).first()
    if entry is None:
        raise NotFound()
    return entry


def thing_get_collectable(thing_id, *, viewer) -> Thing:
    """A Thing the caller may add to a collection: one they may see; 404 for any other (spec §4.5
    says nothing of 401/403 here, and a collection must not reveal someone else's draft)."""
    things = Thing.objects.filter(thing_visible_q(viewer), pk=id_or_404(thing_id))
    thing = things.only("id", "creator_id").first()
    if thing is None:
        raise NotFound()
    return thing


def thing_list_collected_by(*, user, viewer) -> QuerySet:
    """spec §4.1 all-collected-things: each Thing in any of `user`'s collections once, the caller may
    see it, most recently collected first."""
    entries = CollectionThing.objects.filter(thing=OuterRef("pk"), collection__creator=user)
    last_collected = Subquery(entries.order_by("-added").values("added")[:1])
    return (
        thing_list_visible(viewer=viewer)
        .filter(pk__in=CollectionThing.objects.filter(collection__creator=user).values("thing_id"))
        .annotate(last_collected=last_collected)
        .order_by(F("last_collected").desc(), "-id")
    )


# --- the site's pages ----------------------------------------------------------------------------------


def collection_list_for_picker(*, owner, thing_id: int) -> QuerySet:
    """`owner`'s collections for the Thing page's "collect" dialog, each with `has_thing` (this Thing is
    in it), the most recently changed first: one query."""
    from django.db.models import Exists

    holds = CollectionThing.objects.filter(collection=OuterRef("pk"), thing_id=thing_id)
    return (
        Collection.objects.filter(creator_id=owner.pk)
        .annotate(has_thing=Exists(holds))
        .only("id", "name", "creator_id", "modified")
        .order_by("-modified", "-id")
    )
