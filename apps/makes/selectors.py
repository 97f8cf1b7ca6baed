"""Reads of copies (makes), restricted to what the caller may see, with constant query counts.

Visibility (one place, `_visible`): a make is shown when it is not hidden by a moderator and its Thing
is one the caller may see (published or their own, and not hidden); staff see hidden items too
(apps.core.domain.moderation). A make the caller may not see is 404, like a missing one: a make never reveals
someone else's draft. Lists of a Thing's makes first apply the Thing's own 401/403/404 matrix
(apps.things.selectors.thing_get_for_viewer).
"""
from django.db.models import (
    BooleanField,
    Case,
    Exists,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
)

from apps.core.db import count_subquery
from apps.core.domain.exceptions import NotFound, PermissionDenied
from apps.core.domain.moderation import viewer_sees_hidden, visible_q
from apps.core.pipeline.lookups import id_or_404, viewer_id
from apps.makes import rules
from apps.makes.models import Make, MakeLike
from apps.search.selectors import SORT_NEWEST, search_words
from apps.things import selectors as thing_selectors
from apps.uploads.files import selectors as upload_selectors
from apps.uploads.models import Image, ProcessingStatus

# What MakeSerializer reads, and nothing more: the Thing's long text columns and search vector stay
# in the database.
MAKE_FIELDS = (
    "id", "thing", "creator", "description", "like_count", "comment_count", "added", "modified", "is_hidden",
    "creator__username", "creator__first_name", "creator__last_name", "creator__avatar",
)
IMAGE_ORDER = ("rank", "added", "id")


def _visible(viewer) -> Q:
    return visible_q(viewer) & thing_selectors.thing_visible_q(viewer, prefix="thing__")


def make_page_visible(viewer, make_id: int) -> bool:
    """Whether the make's page (/make:<id>) answers for `viewer`: the make is not hidden (staff excepted) and
    its Thing is one the viewer may see (a draft's or a private Thing's makes are its creator's alone)."""
    return Make.objects.filter(_visible(viewer), pk=make_id).exists()


def make_queryset(*, viewer) -> QuerySet:
    """Visible makes with what MakeSerializer shows, in one query: creator and Thing (with its creator
    and the pictures its pointers name) joined; the make's default image and the caller's `is_liked` as
    correlated subqueries, so a page of makes costs no query per row."""
    uid = viewer_id(viewer)
    shown = (*thing_selectors.SHORT_THING_FIELDS, *upload_selectors.THING_PICTURE_FIELDS)
    thing_fields = [f"thing__{name}" for name in shown]
    thing_pictures = [f"thing__{name}" for name in upload_selectors.THING_PICTURE_RELATED]
    is_liked: Value | Exists
    if uid is None:
        is_liked = Value(False, output_field=BooleanField())
    else:
        is_liked = Exists(MakeLike.objects.filter(make=OuterRef("pk"), user_id=uid))
    return (
        # The Thing's category: a copy's `category_name` and `category_url` (the `thingiverse` wire version).
        Make.objects.select_related("creator", "thing__creator", "thing__category", *thing_pictures)
        .only(*MAKE_FIELDS, *thing_fields, "thing__category__name", "thing__category__slug")
        .filter(_visible(viewer))
        .annotate(
            default_image_row=upload_selectors.copy_default_image_row(), is_liked=is_liked,
            root_comment_count_shown=count_subquery(thing_selectors.root_comments_shown().filter(make=OuterRef("pk"))),
        )
    )


def make_root_comment_count(make) -> int:
    """A copy's top-level comments that count (its `root_comment_count` in the `thingiverse` wire version):
    what make_queryset counted in its statement; counted here for a copy read otherwise."""
    found = getattr(make, "root_comment_count_shown", None)
    return found if found is not None else thing_selectors.root_comments_shown().filter(make=make).count()


def _newest_first(qs: QuerySet) -> QuerySet:
    return qs.order_by("-added", "-id")


def make_search(*, term: str, viewer, params) -> QuerySet:
    """GET /search/{term}/?type=makes: the visible makes whose description or Thing's name contains
    every word of `term`. Relevance: the Thing's name matching the first word, then a description
    match; ties newest first. Without a term, or with `sort=newest`: newest first."""
    qs = make_queryset(viewer=viewer)
    words = search_words(term)
    for word in words:
        qs = qs.filter(Q(description__icontains=word) | Q(thing__name__icontains=word))
    if params.sort == SORT_NEWEST or not words:
        return _newest_first(qs)
    rank = Case(When(thing__name__icontains=words[0], then=Value(2)), default=Value(1), output_field=IntegerField())
    return qs.annotate(search_rank=rank).order_by("-search_rank", "-added", "-id")


def make_list_latest(*, viewer) -> QuerySet:
    """spec §4.4 GET /copies/: the latest makes, newest first."""
    return _newest_first(make_queryset(viewer=viewer))


def make_list_for_thing(*, thing, viewer) -> QuerySet:
    """A Thing's makes, newest first (GET /things/{id}/prints). The caller already passed the Thing's
    matrix (thing_get_for_viewer)."""
    return _newest_first(make_queryset(viewer=viewer).filter(thing_id=thing.pk))


def _images_prefetch(viewer) -> Prefetch:
    """Each make's images in one more query for the whole page: live ones, plus the caller's own makes'
    images still processing or failed (as on GET /copies/{id}/images)."""
    shown = Q(status=ProcessingStatus.LIVE)
    uid = viewer_id(viewer)
    if uid is not None:
        shown |= Q(copy__creator_id=uid)
    images = Image.objects.filter(shown).order_by(*IMAGE_ORDER)
    return Prefetch("images", queryset=images, to_attr="image_list")


def make_list_for_thing_with_images(*, thing, viewer) -> QuerySet:
    """spec §4.2 GET /things/{id}/copies: "array of copies with their images"."""
    return make_list_for_thing(thing=thing, viewer=viewer).prefetch_related(_images_prefetch(viewer))


def make_list_for_user(*, owner, viewer) -> QuerySet:
    """spec §4.1 GET /users/{username}/copies: the user's makes the caller may see, newest first."""
    return _newest_first(make_queryset(viewer=viewer).filter(creator_id=owner.pk))


def make_get_for_viewer(make_id, *, viewer) -> Make:
    """One make; 404 when it is missing or the caller may not see it (hidden, or its Thing is)."""
    make = make_queryset(viewer=viewer).filter(pk=id_or_404(make_id)).first()
    if make is None:
        raise NotFound()
    return make


def make_get_own(make_id, *, viewer) -> Make:
    """A make only its creator may change: 404 as make_get_for_viewer, then 403 for anyone else."""
    make = make_get_for_viewer(make_id, viewer=viewer)
    if not rules.make_can_edit(viewer, make):
        raise PermissionDenied()
    return make


def thing_get_makeable(thing_id, *, viewer):
    """The Thing a new make is for: the Thing's matrix (401/403/404), and 404 when it is hidden."""
    thing = thing_selectors.thing_get_for_viewer(thing_id, viewer=viewer, detail=False)
    if thing.is_hidden and not viewer_sees_hidden(viewer):
        raise NotFound()
    return thing


# --- images ------------------------------------------------------------------------------------------


def make_image_list(*, make, viewer) -> QuerySet:
    """The make's images by rank; its creator also sees those still processing or failed."""
    images = Image.objects.filter(copy_id=make.pk).order_by(*IMAGE_ORDER)
    if not rules.make_is_creator(viewer, make):
        images = images.filter(status=ProcessingStatus.LIVE)
    return images


def make_image_get(*, make, image_id, viewer) -> Image:
    """One image of this make (404 when it is another make's or a Thing's, or not visible)."""
    image = make_image_list(make=make, viewer=viewer).filter(pk=id_or_404(image_id)).first()
    if image is None:
        raise NotFound()
    return image


# --- site page ---------------------------------------------------------------------------------------


def make_get_for_page(make_id: int, *, viewer) -> Make:
    """The make page (/make:<id>): the same visibility, with its images attached as `image_list`."""
    make = (
        make_queryset(viewer=viewer)
        .prefetch_related(_images_prefetch(viewer))
        .filter(pk=id_or_404(make_id))
        .first()
    )
    if make is None:
        raise NotFound()
    return make
