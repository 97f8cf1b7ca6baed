"""Reads of Things: one visibility matrix (spec §4.2 / §7) and list querysets with constant query counts."""
from contextlib import contextmanager, nullcontext
from functools import partial
from contextvars import ContextVar

from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection
from django.db.models import BooleanField, Exists, OuterRef, Prefetch, Q, QuerySet
from django.db.models.expressions import RawSQL

from apps.core.db import count_subquery
from apps.core.db.compiled import (
    CompiledIds,
    CompiledQuery,
    CompiledRows,
    PagedByIds,
    ReadWithToken,
    page_window,
    StandInViewer,
    placeholder,
)
from apps.core.domain.exceptions import NotAuthenticated, NotFound, PermissionDenied
from apps.core.domain.moderation import viewer_sees_hidden, visible_q
from apps.core.pipeline.lookups import id_or_404, viewer_id
from apps.things import rules
from apps.things.hooks import thing_images
from apps.things.models import Like, Remix, Tag, Thing, ThingTag, Watch


# --- The one visibility rule of Things (spec §4.2 / §7 plus moderation, issue 5) -------------------------
# Every list, count, search and lookup of Things filters through one of these two, so a Thing a moderator
# hides vanishes everywhere at once for everyone but staff (its creator included: hidden means removed).


def thing_visible_q(viewer, *, prefix: str = "") -> Q:
    """Things `viewer` may see: published and not private, or their own; never hidden (staff see hidden
    ones). A private Thing (issue 22 #5) is its creator's alone, staff included.

    `prefix` walks a relation to the Thing ("thing__" from a collection or group entry)."""
    visible = Q(**{f"{prefix}is_published": True, f"{prefix}is_private": False})
    uid = viewer_id(viewer)
    if uid is not None:
        visible |= Q(**{f"{prefix}creator_id": uid})
    return visible & visible_q(viewer, prefix=prefix)


def thing_public_q(viewer=None, *, prefix: str = "") -> Q:
    """Things of the public lists and their counters: published, not private and not hidden (staff see
    hidden ones, never private ones). Without a viewer (the admin's counters), hidden Things are left out
    as for the public."""
    return Q(**{f"{prefix}is_published": True, f"{prefix}is_private": False}) & visible_q(viewer, prefix=prefix)


_IDS_ONLY: ContextVar[bool] = ContextVar("things_ids_only", default=False)


@contextmanager
def thing_ids_only():
    """Lists built inside this block are read for their ids only (apps.things.bodycache serves the
    rows): they leave out the pictures' joins, which cost building and planning even when never read."""
    token = _IDS_ONLY.set(True)
    try:
        yield
    finally:
        _IDS_ONLY.reset(token)


def _with_pictures(qs: QuerySet, *, only: tuple[str, ...] | None = None) -> QuerySet:
    """What links.thing_thumbnail_url / thing_default_image read: the image the Thing's pointer names
    (Thing.default_image) joined into the Things' own statement, only the columns shown, and the
    render key the Thing keeps, so a page of Things costs no query per row. Their source registers them
    (hooks.thing_images: apps.uploads). `only`: the Thing's own columns when the queryset loads only those."""
    images = None if _IDS_ONLY.get() else thing_images()
    if images is None:
        return qs.only(*only) if only is not None else qs
    qs = qs.select_related(*images.related)
    return qs.only(*only, *images.fields) if only is not None else qs.defer(*images.deferred)


# What a Thing's body shows of its creator (the user summary, apps.accounts.serializers.UserSummarySerializer):
# the detail statement loads only these columns of the creator's row. The rest (the password hash, the e-mail
# address, the profile, the notification settings) stays in the database and never travels with a Thing's
# read. A write's statement (detail=False) loads the whole row: a like or a comment notifies the creator by
# their settings.
CREATOR_SHOWN_FIELDS = ("id", "username", "first_name", "last_name", "avatar")


def _creator_unshown() -> tuple[str, ...]:
    return tuple(
        f"creator__{field.name}" for field in Thing._meta.get_field("creator").related_model._meta.concrete_fields
        if field.name not in CREATOR_SHOWN_FIELDS
    )


def thing_queryset(*, viewer) -> QuerySet:
    """Things with what their serializers read, in one query (+1 for tags when prefetched)."""
    uid = viewer_id(viewer)
    # The search vector is for the database alone; loading it would only slow every Thing read.
    qs = _with_pictures(Thing.objects.select_related("creator", "category").defer("search_vector"))
    if uid is None:
        return qs.annotate(is_liked=Exists(Like.objects.none()), is_watched=Exists(Watch.objects.none()))
    return qs.annotate(
        is_liked=Exists(Like.objects.filter(thing=OuterRef("pk"), user_id=uid)),
        is_watched=Exists(Watch.objects.filter(thing=OuterRef("pk"), user_id=uid)),
    )


# What ThingShortSerializer shows (docs/decisions.md: the shorter Thing of lists), and nothing more: lists
# skip the per-viewer annotations and the long text columns of the detail view. The three counters are what
# the `thingiverse` wire version's short Thing adds (apps.core.pipeline.wire), read in the same statement.
SHORT_THING_FIELDS = (
    "id", "name", "is_published", "is_hidden", "is_private", "is_wip", "like_count", "added", "version", "creator",
    "collect_count", "make_count", "comment_count",
    "creator__username", "creator__first_name", "creator__last_name", "creator__avatar",
)


def thing_short_queryset() -> QuerySet:
    """Things for list endpoints (the short shape), in one query."""
    return _with_pictures(Thing.objects.select_related("creator"), only=SHORT_THING_FIELDS)


def _with_tag_names(qs: QuerySet) -> QuerySet:
    """The Thing's tag names in order (ThingSerializer.tag_names): on PostgreSQL an array in the same
    query, which saves the detail view a second round trip; elsewhere (the SQLite quick start) a prefetch."""
    if connection.vendor == "postgresql":
        names = ThingTag.objects.filter(thing=OuterRef("pk")).order_by("position", "tag__name").values("tag__name")
        return qs.annotate(tag_name_list=ArraySubquery(names))
    return qs.prefetch_related(Prefetch("tags", queryset=Tag.objects.order_by("thingtag__position", "name")))


def thing_list_visible(*, viewer) -> QuerySet:
    """Published Things, plus the viewer's own unpublished ones, never hidden ones (thing_visible_q).
    Newest first, ties broken by id."""
    return thing_short_queryset().filter(thing_visible_q(viewer)).order_by("-added", "-id")


def thing_list_published(*, viewer) -> QuerySet:
    return thing_short_queryset().filter(thing_public_q(viewer)).order_by("-added", "-id")


def thing_get_for_viewer(thing_id, *, viewer, detail: bool = True, rows: list | None = None) -> Thing:
    """spec §4.2/§7: unpublished → 401 anonymous, 403 not the owner; invalid, deleted or hidden by a
    moderator → 404 (hidden: for everyone but staff, the creator included); private → 404 for anyone but
    its creator (issue 22 #5). `rows`: thing_read_with_token's rows, read with the token's row for this
    viewer (ReadWithToken.rows_for); without them the statement is read here."""
    thing_id = id_or_404(thing_id)
    found = rows
    if found is None:
        found = _thing_statement(detail=detail, viewer=viewer).objects(thing_id, *_viewer_values(viewer))
    thing = found[0] if found else None
    if thing is None or (thing.is_private and not rules.thing_is_owner(viewer, thing)):
        raise NotFound()  # a private Thing is its creator's alone: to anyone else it does not exist
    if not thing.is_published:
        if viewer_id(viewer) is None:
            raise NotAuthenticated()
        if not rules.thing_can_view(viewer, thing):
            raise PermissionDenied()
    return thing


def thing_read_with_token(thing_id) -> ReadWithToken | None:
    """The detail statement of a signed-in viewer who is not staff, to read with the token's row
    (apps.core.db.compiled.ReadWithToken; thing_get_for_viewer uses its rows); None for an id no Thing has."""
    try:
        tid = id_or_404(thing_id)
    except NotFound:
        return None
    statement = _thing_statement(detail=True, viewer=StandInViewer(placeholder(1), is_staff=False))
    return ReadWithToken(statement, (tid, placeholder(1)), viewer_slot=1, name="thing")


def _viewer_values(viewer) -> tuple:
    uid = viewer_id(viewer)
    return () if uid is None else (uid,)


def _thing_statement(*, detail: bool, viewer) -> CompiledQuery:
    """The Thing's own statement for this shape of request, compiled once per process (apps.core.db.compiled):
    its id, and the viewer's for is_liked/is_watched, are bound per request."""
    anonymous = viewer_id(viewer) is None
    key = (detail, anonymous, viewer_sees_hidden(viewer))
    statement = _THING_STATEMENTS.get(key)
    if statement is None:
        statement = _THING_STATEMENTS.setdefault(key, CompiledQuery(
            lambda *values: _thing_get_queryset(key, *values), slots=1 if anonymous else 2
        ))
    return statement


def _thing_get_queryset(key, thing_id, uid=None) -> QuerySet:
    detail, anonymous, staff = key
    viewer = None if anonymous else StandInViewer(uid, is_staff=staff)
    qs = thing_queryset(viewer=viewer)
    if detail:
        qs = _with_detail_counts(_with_tag_names(qs.defer(*_creator_unshown())))
    return qs.filter(visible_q(viewer), pk=thing_id).order_by("pk")[:1]


def _remixes_shown() -> QuerySet:
    """The derivative links of Things everyone may see (a Thing's `remix_count`), by ancestor."""
    return Remix.objects.filter(thing_public_q(None, prefix="derivative__"))


def root_comments_shown() -> QuerySet:
    """The top-level comments that count, of any target: a Thing's `root_comment_count` filters them by
    Thing, a copy's (apps.makes.selectors) by copy. The comment model is read through the Thing's relation:
    apps.comments sits above this app."""
    comment_model = Thing._meta.get_field("comments").related_model
    return comment_model._default_manager.filter(parent__isnull=True, counted=True)


def _with_detail_counts(qs: QuerySet) -> QuerySet:
    """`remix_count` and `root_comment_count` of the detail body (ThingSerializer), as subqueries of its
    one statement."""
    return qs.annotate(
        remix_count_shown=count_subquery(_remixes_shown().filter(ancestor=OuterRef("pk"))),
        root_comment_count_shown=count_subquery(root_comments_shown().filter(thing=OuterRef("pk"))),
    )


def thing_remix_count(thing) -> int:
    found = getattr(thing, "remix_count_shown", None)
    return found if found is not None else _remixes_shown().filter(ancestor=thing).count()


def thing_root_comment_count(thing) -> int:
    found = getattr(thing, "root_comment_count_shown", None)
    return found if found is not None else root_comments_shown().filter(thing=thing).count()


_THING_STATEMENTS: dict[tuple, CompiledQuery] = {}
_LIST_IDS: dict[str, CompiledIds] = {}


def thing_get_any(thing_id, *, viewer) -> Thing:
    """spec §4.2 hack-the-pandemic-thing: unpublished Things too, for every user; 404 if missing or
    hidden by a moderator (staff excepted)."""
    thing_id = id_or_404(thing_id)
    thing = _with_tag_names(thing_queryset(viewer=viewer)).filter(visible_q(viewer), pk=thing_id).first()
    if thing is None or (thing.is_private and not rules.thing_is_owner(viewer, thing)):
        raise NotFound()
    return thing


# --- Catalog: categories, tags and the discovery lists (views_catalog.py, pages.py) -----------------
# Every count below is of *published* Things: drafts never show in a public list, so they never count,
# and a deleted Thing is gone from the table (its ThingTag rows cascade). A tag's and a category's count is
# kept by the database (apps.things.counts, migration 0013): read, never counted per request.

from datetime import timedelta  # noqa: E402

from django.db.models import Count, F, FilteredRelation, Func, IntegerField, Subquery, Value  # noqa: E402
from django.db.models.functions import Coalesce, Lower  # noqa: E402
from django.utils import timezone  # noqa: E402

from apps.things.counts import count_field  # noqa: E402
from apps.things.models import Category, CategoryCount, popular_lifetime  # noqa: E402
from apps.things.normalize import category_slug, tag_normalize  # noqa: E402

# /popular/: activity of the last 30 days. Like.created gives the window; downloads and makes are
# lifetime counters, so they weigh less per event: a recent like counts as 10 downloads, a make as 2 likes
# (their weights: apps.things.models.popular_lifetime).
POPULAR_WINDOW = timedelta(days=30)
POPULAR_LIKE_WEIGHT = 10


def _in_category_tree(category_id) -> Q:
    """The category itself or one of its sub-categories (a two-level tree: the admin keeps it so). The
    ids come from a subquery of the small categories table, so the Things are found by their own
    category index (an OR across the join to the categories walked every Thing)."""
    tree = Category.objects.filter(Q(pk=category_id) | Q(parent_id=category_id)).values("pk")
    return Q(category_id__in=tree)


def category_tree_order() -> list:
    """Tree order: top-level categories by position, each followed by its children by position."""
    return [
        Coalesce("parent__position", "position").asc(),
        Coalesce("parent__name", "name").asc(),
        F("parent_id").asc(nulls_first=True),
        F("position").asc(),
        F("name").asc(),
    ]


def _tree_count(viewer) -> Coalesce:
    """A category's `thing_count`: the kept counts (apps.things.counts) of the category and of its
    sub-categories, summed; a handful of rows of a small table, whatever the number of Things."""
    field = count_field(viewer)
    rows = CategoryCount.objects.filter(Q(category_id=OuterRef("pk")) | Q(category__parent_id=OuterRef("pk")))
    summed = rows.order_by().annotate(n=Func(F(field), function="SUM")).values("n")
    return Coalesce(Subquery(summed, output_field=IntegerField()), Value(0))


def category_list(*, viewer=None) -> QuerySet:
    """Every category in tree order, with `thing_count`: published Things in the category and its
    sub-categories that `viewer` may see (hidden ones only for staff)."""
    return (
        Category.objects.select_related("parent")
        .annotate(thing_count=_tree_count(viewer))
        .order_by(*category_tree_order())
    )


def thing_count_of(found: Category | Tag) -> int:
    """The count read with a category or a tag by the selectors here (`thing_count`: the kept count of
    the Things the viewer sees; a category's with its sub-categories')."""
    return found.thing_count  # type: ignore[union-attr]


def category_get(raw_slug: str, *, viewer=None) -> Category:
    """spec §4.7: 404 for an unknown category. The segment goes through the slug rule, so a client
    sending the name ('Replacement Parts') or another case finds 'replacement-parts' too."""
    category = category_list(viewer=viewer).filter(slug=category_slug(raw_slug)).first()
    if category is None:
        raise NotFound()
    return category


def category_list_things(*, category, viewer) -> QuerySet:
    """Published Things of the category and its sub-categories, newest first."""
    return thing_list_published(viewer=viewer).filter(_in_category_tree(category.pk))


def tag_list(*, viewer=None) -> QuerySet:
    """spec §4.7 "all tags in alphabetical order": the tags of at least one published Thing `viewer` may
    see, with `thing_count`. Alphabetical ignores case; ties (impossible by the unique index) by id."""
    field = count_field(viewer)
    return (
        Tag.objects.filter(**{f"counts__{field}__gt": 0})
        .annotate(thing_count=F(f"counts__{field}"))
        .order_by(Lower("name"), "id")
    )


def tag_get(raw_tag: str, *, viewer=None) -> Tag:
    """spec §4.7: the segment normalised as in §2, matched ignoring case. A tag no published Thing
    carries is 404 like an unknown one: it is not in the public list, and a draft's tags stay private
    (so do a hidden Thing's)."""
    name = tag_normalize(raw_tag)
    if not name:
        raise NotFound()
    tag = tag_list(viewer=viewer).alias(name_lower=Lower("name")).filter(name_lower=name.lower()).first()
    if tag is None:
        raise NotFound()
    return tag


# A tag's Things newest first, in the order of the tag links' own index (ThingTag.added, the Thing's
# `added` copied by the database): the same order as the Things' ("-added", "-id"), one walk of the tag's
# entries. For a queryset filtered on `thingtag__tag` (the order reuses that join).
TAG_NEWEST_ORDER = ("-thingtag__added", "-thingtag__thing_id")


# From how many skipped Things a tag's page is chosen in the shown links' index: on the bench's catalogue
# (PostgreSQL, a tag of 15,000 Things) the subquery costs about 1 ms more at offset 30 and breaks even
# near offset 90-300; at offset 6,000 it takes 7 ms against 60 (docs/performance.md, sixteenth round).
TAG_IDS_FIRST_FROM = 300


def tag_list_things(*, tag, viewer) -> QuerySet | PagedByIds:
    """A tag's Things newest first, as `viewer` may see them. For anyone but staff, a deep page (from
    TAG_IDS_FIRST_FROM skipped Things) is chosen in the partial index of the tag's shown links
    (ThingTag.shown, migration 0017), so it reads its 30 Things, not every one before them; staff, who
    see hidden Things too, read the list itself."""
    things = thing_list_published(viewer=viewer).filter(thingtag__tag=tag).order_by(*TAG_NEWEST_ORDER)
    if viewer_sees_hidden(viewer):
        return things
    shown = ThingTag.objects.filter(tag=tag, shown=True).order_by("-added", "-thing_id").values("thing_id")
    return PagedByIds(things, shown, ids_first_from=TAG_IDS_FIRST_FROM)


def thing_list_newest(*, viewer) -> QuerySet:
    return thing_list_published(viewer=viewer)


def thing_list_ids_compiled(name: str) -> CompiledIds | None:
    """The (id, version) statement of a public list for any viewer who is not staff, compiled once per process
    (apps.core.db.compiled): /newest/ and /featured/, whose SQL carries no per-request value. None for
    another list (/popular/ depends on the time)."""
    return _LIST_IDS.get(name)


def thing_list_rows_compiled(name: str) -> CompiledRows | None:
    """The short Things of a public list for any viewer who is not staff, a page per statement, compiled
    once per process like thing_list_ids_compiled (the first read of /newest/ and /featured/)."""
    return _LIST_ROWS.get(name)


def thing_short_rows(ids) -> list[Thing]:
    """The short Things with these ids (any order; those that exist): thing_short_queryset's statement
    compiled once per process on PostgreSQL (`id = ANY(ids)`, one prepared statement for any number)."""
    ids = [int(i) for i in ids]
    if connection.vendor != "postgresql":
        return list(thing_short_queryset().filter(pk__in=ids))
    return _SHORT_BY_IDS.objects(ids)


def _short_by_ids(ids) -> QuerySet:
    column = f'{connection.ops.quote_name(Thing._meta.db_table)}."id"'
    return thing_short_queryset().filter(RawSQL(f"{column} = ANY(%s)", (ids,), output_field=BooleanField()))


_SHORT_BY_IDS = CompiledQuery(_short_by_ids, slots=1)


def _ids_of(build) -> CompiledIds:
    """(id, version) pairs of the list, in order: the page's ids, and what its kept page is validated by
    (bodies.list_page_cached)."""
    def ids() -> QuerySet:
        with thing_ids_only():
            return build(viewer=None).values_list("pk", "version")

    return CompiledIds(ids)


def thing_list_popular(*, viewer, now=None, within: int | None = None) -> QuerySet:
    """Published Things by recent activity (`popularity`), ties by newest then id.

    `within`: only the first `within` Things of the list will be read (a page's offset plus its size, the
    front page's few). The statement then ranks only the Things that can be among them, not every
    published Thing:
    - the first `within` by their lifetime part alone (makes and downloads; an index walks that order),
    - and every Thing liked within the window.
    A Thing in neither has no recent like, so its popularity is its lifetime part, and `within` Things of
    the first set come before it (each one's popularity is at least its lifetime part, which is at least
    this Thing's; on a tie, the first set's order is the list's own tie order). So the first `within`
    Things of the list are all among these candidates, in the same order.
    """
    since = (now or timezone.now()) - POPULAR_WINDOW
    things = thing_list_published(viewer=viewer)
    if within is not None:
        lifetime_first = (
            things.order_by(popular_lifetime().desc(), "-added", "-id").values("pk")[: max(within, 0)]
        )
        # Nested once more, the LIMIT is inside a subquery of the UNION's branch, which SQLite accepts too.
        first = Thing.objects.filter(pk__in=lifetime_first).values("pk")
        liked = _liked_since(since)
        things = things.filter(pk__in=first.union(liked))
    # The window's likes joined and counted in one pass (a LEFT JOIN grouped by Thing), not counted once per
    # ranked Thing by a correlated subquery: a deep page ranks nearly every Thing, and at 100,000 Things
    # page 100 took three times as long, page 3,000 twice (docs/performance.md).
    return (
        things.annotate(recent_likes=FilteredRelation("likes", condition=Q(likes__created__gte=since)))
        .annotate(recent_like_count=Count("recent_likes"))
        .annotate(popularity=F("recent_like_count") * POPULAR_LIKE_WEIGHT + popular_lifetime())
        .order_by("-popularity", "-added", "-id")
    )


# A page of the public /popular/ from this offset on is chosen by PopularPages' merge; one before it ranks
# its candidates (thing_list_popular's `within`), which costs about as much as the merge's two extra
# statements there (docs/decisions.md: where the merge starts).
POPULAR_MERGED_FROM = 1000


def thing_list_popular_pages(*, viewer) -> "PopularPages":
    """/popular/ as the API and the site page it, for `viewer` (staff see hidden Things too): a
    PopularPages, whose deep pages read their own Things and not the ones before them."""
    return PopularPages(viewer=viewer, now=timezone.now())


class PopularPages:
    """The /popular/ list as `viewer` may see it (thing_public_q), read a page at a time (what Django's
    Paginator and the API's pagination read). A page from offset POPULAR_MERGED_FROM on is chosen without ranking the Things before it
    (docs/decisions.md: "Deep pages of /popular/ chosen in the lifetime index"); an earlier one ranks its
    candidates as thing_list_popular(within=…) does.

    The list is the merge of two sequences in the same order (popularity, then newest, then id, each
    descending):
    - R, the Things liked within the window, ranked by their popularity (few: one statement reads them all);
    - N, every other Thing on the list, whose popularity is its lifetime part alone, in the order the partial
      index `things_popular_lifetime_idx` holds (with its INCLUDE columns, an index-only walk).
    The j-th Thing of N stands at j + c in the list, c the number of R ranked before it, and c ≤ |R|.
    So the Things at [start, stop) are among R and N[start - |R| : stop]: the page reads that run of N
    (skipping its first entries in the index alone), merges it with R, and takes the positions it asks for
    (popular_window_ids). Its rows then come from thing_list_popular itself, filtered to those ids, ranked
    and filtered as the list is: an id chosen wrongly (a like added meanwhile) can only leave a Thing out,
    never show one the viewer may not see. `now`: the one moment of the page's window, for all its
    statements; `values`: values_list's arguments, applied to the rows. A PopularPages made inside
    thing_ids_only() builds its rows as that block would, when they are read after it."""

    def __init__(self, *, viewer=None, now, values: tuple[tuple, dict] | None = None, ids_only: bool | None = None):
        self._viewer, self._now, self._values = viewer, now, values
        self._ids_only = _IDS_ONLY.get() if ids_only is None else ids_only

    def count(self) -> int:
        return thing_list_published(viewer=self._viewer).count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window):
        start, stop = (max(bound, 0) for bound in page_window(window))
        if stop <= start:
            return self._rows().none()
        if start < POPULAR_MERGED_FROM:
            return self._rows(within=stop)[start:stop]
        return self._rows().filter(pk__in=popular_window_ids(self._now, start, stop, viewer=self._viewer))

    def values_list(self, *fields, **kwargs) -> "PopularPages":
        return PopularPages(viewer=self._viewer, now=self._now, values=(fields, kwargs), ids_only=self._ids_only)

    def _rows(self, within: int | None = None) -> QuerySet:
        with thing_ids_only() if self._ids_only else nullcontext():
            rows = thing_list_popular(viewer=self._viewer, now=self._now, within=within)
        return rows.values_list(*self._values[0], **self._values[1]) if self._values is not None else rows


def popular_window_ids(now, start: int, stop: int, *, viewer=None) -> list[int]:
    """The ids at positions [start, stop) of the /popular/ list as `viewer` may see it at `now`
    (PopularPages explains how): two statements, whatever the depth."""
    since = now - POPULAR_WINDOW
    listed = Thing.objects.filter(thing_public_q(viewer))
    liked = _liked_since(since)
    # R: (popularity, added, id) of every Thing on the list liked in the window.
    recent = sorted(
        thing_list_popular(viewer=viewer, now=now).filter(pk__in=liked).values_list("popularity", "added", "pk"),
        reverse=True,
    )
    first = max(0, start - len(recent))
    # N[first:stop]: the others in the lifetime index's order, whose popularity is their lifetime part.
    run = list(
        listed.exclude(pk__in=liked)
        .order_by(popular_lifetime().desc(), "-added", "-id")
        .annotate(lifetime=popular_lifetime())
        .values_list("lifetime", "added", "pk")[first:stop]
    )
    if not run and first > 0:
        return []  # N ends before `first`: the list (N and R) ends before `start`
    # R and the run merged: a Thing ranked at or after N[first] stands `first` places further on in the list
    # (N[:first] all come before it). One ranked before N[first] (an R) stands before `start` when first > 0
    # (N[first] stands at first + c ≤ start), and exactly where it is when first == 0.
    merged = sorted(recent + run, reverse=True)
    return [key[2] for offset, key in enumerate(merged, first) if start <= offset < stop]


def _liked_since(since) -> QuerySet:
    """The ids of the Things liked from `since` on (a subquery): /popular/'s Things whose popularity is
    more than their lifetime part."""
    return Like.objects.filter(created__gte=since).values("thing_id")


def thing_list_featured(*, viewer) -> QuerySet:
    """Featured published Things, the most recently featured first (a featured draft stays hidden)."""
    return (
        thing_list_published(viewer=viewer)
        .filter(is_featured=True)
        .order_by(F("featured_at").desc(nulls_last=True), "-id")
    )


_LIST_IDS.update(newest=_ids_of(thing_list_newest), featured=_ids_of(thing_list_featured))
_LIST_ROWS: dict[str, CompiledRows] = {
    name: CompiledRows(partial(build, viewer=None), count_source=_LIST_IDS[name])
    for name, build in (("newest", thing_list_newest), ("featured", thing_list_featured))
}


def thing_get_for_page(thing_id: int, *, viewer) -> Thing:
    """The site page's Thing (pages.thing_page): what the API detail loads plus the category's parent.

    The page answers 404 for anything the viewer may not see (no 401/403 there: a visitor learns nothing
    about someone else's draft), hidden Things included."""
    thing = (
        thing_queryset(viewer=viewer)
        .select_related("category__parent")
        .prefetch_related(Prefetch("tags", queryset=Tag.objects.order_by("thingtag__position", "name")))
        .filter(visible_q(viewer), pk=thing_id)
        .first()
    )
    if thing is None or not rules.thing_can_view(viewer, thing):
        raise NotFound()
    return thing


def thing_get_hidden_own(thing_id: int, *, viewer) -> Thing | None:
    """The viewer's own Thing that a moderator hid (its page tells the owner why, with the appeal), or
    None. Only the hiding's fields the owner may know are read."""
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return None
    return (
        Thing.objects.filter(pk=thing_id, creator_id=viewer.pk, is_hidden=True)
        .only("pk", "name", "creator_id", "is_hidden", "hidden_reason", "hidden_at")
        .first()
    )


# --- Things endpoints (views.py): ownership, sub-collections, users' lists, input references ---------

from django.contrib.auth import get_user_model  # noqa: E402



def thing_get_own(thing_id, *, viewer, detail: bool = False) -> Thing:
    """A Thing only its creator may change: the visibility matrix first, then 403 for anyone else."""
    thing = thing_get_for_viewer(thing_id, viewer=viewer, detail=detail)
    if not rules.thing_can_edit(viewer, thing):
        raise PermissionDenied()
    return thing


def thing_list_for_user(*, owner, viewer) -> QuerySet:
    """spec §4.1 /users/{username}/things: newest first; drafts only on the caller's own list, hidden
    Things on nobody's (staff excepted)."""
    return thing_list_visible(viewer=viewer).filter(creator=owner)


def thing_list_liked_by(*, user, viewer) -> QuerySet:
    """spec §4.1 /users/{username}/likes: the Things `user` liked that `viewer` may see, newest like first."""
    # One join to the user's likes (index things_like_user_idx), reused by the ORDER BY.
    return thing_list_visible(viewer=viewer).filter(likes__user=user).order_by("-likes__created", "-id")


def thing_list_favorited_by(*, user, viewer) -> QuerySet:
    """spec §4.1 /users/{username}/favorites: the user's likes as Favorites, each Thing with `favorited`
    (when it was liked). The same rows and order as thing_list_liked_by."""
    # F() reuses the join of the filter, so `favorited` is the like row the list is ordered by.
    return thing_list_liked_by(user=user, viewer=viewer).annotate(favorited=F("likes__created"))


def thing_list_ancestors(*, thing, viewer) -> QuerySet:
    """spec §4.2: the Things this one derives from, hiding those the viewer may not see."""
    return thing_list_visible(viewer=viewer).filter(derivatives=thing)


def thing_ancestor_versions(thing_id: int) -> tuple[tuple[int, int], ...]:
    """(id, version) of every Thing this one derives from, whoever may see it, by id: what a kept body
    that shows its ancestors was built from (apps.things.bodies). A link added or removed, or an ancestor
    changed, hidden, unpublished or deleted (each moves its version or drops its row), changes it."""
    return tuple(
        Remix.objects.filter(derivative_id=thing_id).order_by("ancestor_id").values_list("ancestor_id", "ancestor__version")
    )


def thing_list_derivatives(*, thing, viewer) -> QuerySet:
    """spec §4.2: the Things derived from this one, hiding those the viewer may not see."""
    return thing_list_visible(viewer=viewer).filter(ancestors=thing)


def thing_liker_list(*, thing) -> QuerySet:
    """spec §4.2 GET /things/{id}/likes: the users who liked the Thing, newest like first. Suspended
    accounts are left out, as everywhere else (accounts.selectors.user_get_by_name)."""
    return (
        get_user_model()
        .objects.filter(is_active=True, thing_likes__thing=thing)
        .order_by("-thing_likes__created", "-thing_likes__id")
    )


def thing_tag_list(*, thing, viewer=None) -> QuerySet:
    """spec §4.2 GET /things/{id}/tags: in the Thing's order, each with `thing_count` (the published
    Things `viewer` may see, as /tags/{tag}/ counts them)."""
    return (
        Tag.objects.filter(thingtag__thing=thing)
        .annotate(thing_count=Coalesce(F(f"counts__{count_field(viewer)}"), Value(0)))
        .order_by("thingtag__position", "thingtag__id")
    )


def thing_tags_of(thing_ids: list[int]) -> dict[int, list[Tag]]:
    """The tags of each of these Things in its order, as thing_tag_list reads them for everyone (each
    annotated with `thing_count`): one statement for all of them (a list's short Things, apps.core.pipeline.batch)."""
    found: dict[int, list[Tag]] = {}
    if not thing_ids:
        return found
    tags = (
        Tag.objects.filter(thingtag__thing_id__in=thing_ids)
        .annotate(thing_count=Coalesce(F(f"counts__{count_field(None)}"), Value(0)), for_thing=F("thingtag__thing_id"))
        .order_by("thingtag__thing_id", "thingtag__position", "thingtag__id")
    )
    for tag in tags:
        found.setdefault(tag.for_thing, []).append(tag)
    return found


def thing_category_list(*, thing, viewer=None) -> QuerySet:
    """spec §4.2 GET /things/{id}/categories: the Thing's category, then its parent (none: empty)."""
    if thing.category_id is None:
        return Category.objects.none()
    ids = [thing.category_id] + ([thing.category.parent_id] if thing.category.parent_id else [])
    # The child has a parent and the parent has none: nulls last puts the Thing's own category first.
    return category_list(viewer=viewer).filter(pk__in=ids).order_by(F("parent_id").asc(nulls_last=True), "id")


def category_get_by_id(category_id: int) -> Category | None:
    """The live service's PATCH names a Thing's category by its id too (CategoryInputField bounds it)."""
    return Category.objects.filter(pk=category_id).first()


def category_get_by_name(name: str) -> Category | None:
    """spec §2: a Thing's category is set by its full name. Matched ignoring case; the slug is accepted
    too, so a client echoing `categories/{slug}` data is understood."""
    name = name.strip()
    category: Category | None = (
        Category.objects.alias(name_lower=Lower("name")).filter(name_lower=name.lower()).first()
    )
    slug = category_slug(name)
    if category is None and slug:
        category = Category.objects.filter(slug=slug).first()
    return category


def thing_ids_visible(ids, *, viewer) -> set[int]:
    """The subset of `ids` naming Things `viewer` may see (published, or their own)."""
    return set(thing_list_visible(viewer=viewer).filter(pk__in=ids).values_list("pk", flat=True))


# --- Site pages (pages/): the same visibility rules, shaped for templates ------------------------------


def category_children(*, category, viewer=None) -> QuerySet:
    """The sub-categories of `category`, in tree order, each with its `thing_count`."""
    return category_list(viewer=viewer).filter(parent_id=category.pk)


def category_top_list(*, viewer=None) -> QuerySet:
    """The top-level categories, in order, each with its `thing_count` (sub-categories included)."""
    return category_list(viewer=viewer).filter(parent__isnull=True)


def category_choices() -> list[tuple[str, str]]:
    """(full name, label) of every category in tree order: what a Thing form offers (spec §2: a Thing's
    category is set by its full name)."""
    categories = Category.objects.select_related("parent").order_by(*category_tree_order())
    return [
        (c.name, f"{c.parent.name} › {c.name}" if c.parent is not None else c.name) for c in categories
    ]


def thing_get_for_edit(thing_id: int, *, viewer) -> Thing:
    """The Thing of the site's edit page and write routes: the page's visibility, then its creator
    only. Anyone else gets 404 like a missing Thing (the page reveals nothing about the rules)."""
    thing = thing_get_for_page(thing_id, viewer=viewer)
    if not rules.thing_can_edit(viewer, thing):
        raise NotFound()
    return thing


def thing_like_state(*, thing_id: int, viewer) -> dict:
    """{"like_count", "is_liked"} of a Thing as it is now (after a like or unlike on the site)."""
    row = (
        thing_queryset(viewer=viewer).filter(pk=thing_id).values("like_count", "is_liked").first()
        or {"like_count": 0, "is_liked": False}
    )
    return {"like_count": row["like_count"], "is_liked": bool(row["is_liked"])}


def category_slug_choices() -> list[tuple[str, str]]:
    """(slug, label) of every category in tree order: the search page's category filter."""
    categories = Category.objects.select_related("parent").order_by(*category_tree_order())
    return [(c.slug, f"{c.parent.name} › {c.name}" if c.parent is not None else c.name) for c in categories]
