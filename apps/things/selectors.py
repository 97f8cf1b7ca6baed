"""Reads of Things: one visibility matrix (spec §4.2 / §7) and list querysets with constant query counts."""
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet

from apps.core.exceptions import NotAuthenticated, NotFound, PermissionDenied
from apps.things import rules
from apps.things.models import Like, Tag, Thing, Watch


def _viewer_id(viewer):
    return viewer.pk if viewer is not None and viewer.is_authenticated else None


def thing_queryset(*, viewer) -> QuerySet:
    """Things with what their serializers read, in one query (+1 for tags when prefetched)."""
    viewer_id = _viewer_id(viewer)
    qs = Thing.objects.select_related("creator", "category")
    if viewer_id is None:
        return qs.annotate(is_liked=Exists(Like.objects.none()), is_watched=Exists(Watch.objects.none()))
    return qs.annotate(
        is_liked=Exists(Like.objects.filter(thing=OuterRef("pk"), user_id=viewer_id)),
        is_watched=Exists(Watch.objects.filter(thing=OuterRef("pk"), user_id=viewer_id)),
    )


def thing_list_visible(*, viewer) -> QuerySet:
    """Published Things, plus the viewer's own unpublished ones. Newest first, ties broken by id."""
    viewer_id = _viewer_id(viewer)
    visible = Q(is_published=True)
    if viewer_id is not None:
        visible |= Q(creator_id=viewer_id)
    return thing_queryset(viewer=viewer).filter(visible).order_by("-added", "-id")


def thing_list_published(*, viewer) -> QuerySet:
    return thing_queryset(viewer=viewer).filter(is_published=True).order_by("-added", "-id")


def thing_get_for_viewer(thing_id, *, viewer, detail: bool = True) -> Thing:
    """spec §4.2/§7: unpublished → 401 anonymous, 403 not the owner; invalid or deleted → 404."""
    try:
        thing_id = int(thing_id)
    except (TypeError, ValueError):
        raise NotFound() from None
    qs = thing_queryset(viewer=viewer)
    if detail:
        qs = qs.prefetch_related(Prefetch("tags", queryset=Tag.objects.order_by("thingtag__position", "name")))
    thing = qs.filter(pk=thing_id).first()
    if thing is None:
        raise NotFound()
    if not thing.is_published:
        if _viewer_id(viewer) is None:
            raise NotAuthenticated()
        if not rules.thing_can_view(viewer, thing):
            raise PermissionDenied()
    return thing


def thing_get_any(thing_id, *, viewer) -> Thing:
    """spec §4.2 hack-the-pandemic-thing: unpublished Things too, for every user; 404 only if missing."""
    try:
        thing_id = int(thing_id)
    except (TypeError, ValueError):
        raise NotFound() from None
    thing = (
        thing_queryset(viewer=viewer)
        .prefetch_related(Prefetch("tags", queryset=Tag.objects.order_by("thingtag__position", "name")))
        .filter(pk=thing_id)
        .first()
    )
    if thing is None:
        raise NotFound()
    return thing
