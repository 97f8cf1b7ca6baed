"""Reads of groups (spec §4.8). Groups and topics are visible to every token user; the Things in a group
are filtered to what the caller may see (published, or their own), in counts too.

A group hidden by a moderator (core.moderation) is gone for everyone but staff: every lookup below
filters it with `visible_q`, so its detail, topics, Things and members answer 404 and lists skip it."""
from django.contrib.auth import get_user_model
from django.db.models import (
    Case, Count, Exists, F, Func, IntegerField, OuterRef, Q, QuerySet, Subquery, Value, When,
)
from django.db.models.functions import Coalesce, Greatest

from apps.core.domain.exceptions import NotFound, PermissionDenied, RuleViolation
from apps.core.domain.moderation import visible_q
from apps.core.pipeline.lookups import id_or_404, viewer_id
from apps.groups import rules
from apps.groups.models import Group, GroupFollow, GroupMember, GroupThing, GroupTopic
from apps.things.selectors import thing_list_visible, thing_visible_q

FILTERS = ("all", "my-groups")
SORTS = ("members", "topics", "activity", "newest")
THING_SORTS = ("newest", "popular")


def _count(queryset) -> Coalesce:
    counted = queryset.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def _visible_entries(viewer) -> Q:
    """GroupThing rows whose Thing `viewer` may see (things.selectors.thing_visible_q)."""
    return thing_visible_q(viewer, prefix="thing__")


def group_queryset(*, viewer) -> QuerySet:
    """Groups with `member_count`, `thing_count` (Things the viewer may see), `topic_count` and
    `is_member` as correlated subqueries, creator joined: one query for any number of rows."""
    members = GroupMember.objects.filter(group=OuterRef("pk"))
    return Group.objects.filter(visible_q(viewer)).select_related("creator").annotate(
        member_count=_count(members),
        thing_count=_count(GroupThing.objects.filter(_visible_entries(viewer), group=OuterRef("pk"))),
        topic_count=_count(GroupTopic.objects.filter(group=OuterRef("pk"))),
        # Anonymous callers are members of nothing.
        is_member=Exists(members.filter(user_id=uid)) if (uid := viewer_id(viewer)) is not None else Value(False),
    )


def group_list(*, viewer, filter: str = "all", sort: str = "members", search: str = "") -> QuerySet:
    """spec §4.8 GET /groups/: every group (or the caller's), sorted descending, ties newest first."""
    groups = group_queryset(viewer=viewer)
    if filter == "my-groups":
        groups = groups.filter(memberships__user_id=viewer_id(viewer))
    if search:
        groups = groups.filter(Q(name__icontains=search) | Q(description__icontains=search))
    if sort == "members":
        key = F("member_count")
    elif sort == "topics":
        key = F("topic_count")
    elif sort == "activity":
        # The latest of: the group's own change, a topic written or edited, a Thing added.
        last_topic = GroupTopic.objects.filter(group=OuterRef("pk")).order_by("-modified").values("modified")[:1]
        last_thing = GroupThing.objects.filter(group=OuterRef("pk")).order_by("-added").values("added")[:1]
        groups = groups.annotate(
            activity=Greatest(
                F("modified"), Coalesce(Subquery(last_topic), F("modified")), Coalesce(Subquery(last_thing), F("modified"))
            )
        )
        key = F("activity")
    else:
        key = F("added")
    return groups.order_by(key.desc(), "-added", "-id")


def group_get(group_id, *, viewer) -> Group:
    """404 for an unknown group (or one hidden by a moderator); any other group is visible to every caller."""
    group = group_queryset(viewer=viewer).filter(pk=id_or_404(group_id)).first()
    if group is None:
        raise NotFound()
    return group


def group_get_plain(group_id, *, viewer=None) -> Group:
    """The bare row (no annotations), for writes and sub-lists; 404 if unknown or hidden (staff excepted;
    without a viewer, hidden is 404)."""
    group = Group.objects.filter(visible_q(viewer), pk=id_or_404(group_id)).first()
    if group is None:
        raise NotFound()
    return group


def group_is_member(*, group, user) -> bool:
    return viewer_id(user) is not None and GroupMember.objects.filter(group=group, user_id=user.pk).exists()


def group_get_as_member(group_id, *, viewer) -> Group:
    """A group the caller belongs to: 404 unknown, 403 not a member."""
    group = group_get_plain(group_id, viewer=viewer)
    if not group_is_member(group=group, user=viewer):
        raise PermissionDenied()
    return group


def group_get_editable(group_id, *, viewer) -> Group:
    """A group the caller owns: 404 unknown, 403 someone else's."""
    group = group_get_plain(group_id, viewer=viewer)
    if not rules.group_can_edit(viewer, group):
        raise PermissionDenied()
    return group


def group_member_list(*, group) -> QuerySet:
    """spec §4.8: the group owner first, then by join date ascending (ties by id)."""
    return (
        get_user_model().objects.filter(group_memberships__group=group)
        .annotate(
            is_owner=Case(When(pk=group.creator_id, then=Value(0)), default=Value(1), output_field=IntegerField()),
            joined=F("group_memberships__joined"),
        )
        .order_by("is_owner", "joined", "id")
    )


def group_list_for_member(*, user, viewer) -> QuerySet:
    """The groups `user` is a member of that `viewer` may see, in the order they joined (ties by id)."""
    return (
        Group.objects.filter(visible_q(viewer), memberships__user=user)
        .only("id", "name", "slug")
        .order_by("memberships__joined", "id")
    )


def group_featured_things(*, group_ids: list[int], viewer) -> dict[int, list]:
    """Each group's featured Things (rank 1..3, in rank order) that `viewer` may see, for many groups in one
    statement: {group id: [Thing, …]} (a group with none is absent)."""
    things = (
        thing_list_visible(viewer=viewer)
        .filter(group_entries__group_id__in=group_ids, group_entries__rank__gt=0)
        .annotate(featured_in=F("group_entries__group_id"), featured_rank=F("group_entries__rank"))
        .order_by("featured_in", "featured_rank")
    )
    found: dict[int, list] = {}
    for thing in things:
        found.setdefault(thing.featured_in, []).append(thing)
    return found


def group_list_things(*, group, viewer, sort: str | None = None, search: str = "") -> QuerySet:
    """spec §4.8 GET /groups/{id}/things: the Things the caller may see. `newest` = latest added to the
    group; `popular` = most liked; `search` (name contains, never with `sort`) in relevance order:
    exact name, then name start, then elsewhere, most liked first within each."""
    things = thing_list_visible(viewer=viewer).filter(group_entries__group=group)
    if search:
        relevance = Case(
            When(name__iexact=search, then=Value(0)),
            When(name__istartswith=search, then=Value(1)),
            default=Value(2),
            output_field=IntegerField(),
        )
        return things.filter(name__icontains=search).annotate(relevance=relevance).order_by(
            "relevance", "-like_count", "-id"
        )
    if sort == "popular":
        return things.order_by("-like_count", "-added", "-id")
    return things.order_by(F("group_entries__added").desc(), "-id")


def group_entry_get(*, group, thing_id) -> GroupThing:
    """The group's entry for a Thing; 400 (spec §7: "Remove from a group a Thing not in it") if none."""
    entry = GroupThing.objects.filter(group=group, thing_id=id_or_404(thing_id)).first()
    if entry is None:
        raise RuleViolation("The Thing is not in the group.")
    return entry


def group_topic_queryset() -> QuerySet:
    return GroupTopic.objects.select_related("user")


def group_topic_list(*, group) -> QuerySet:
    """Pinned topics first, then newest first."""
    return group_topic_queryset().filter(group=group).order_by("-pinned", "-added", "-id")


def group_topic_get(topic_id, *, viewer=None) -> GroupTopic:
    """404 for an unknown topic, or one of a hidden group (staff excepted; without a viewer, 404)."""
    topic = (
        group_topic_queryset()
        .select_related("group")
        .filter(visible_q(viewer, prefix="group__"), pk=id_or_404(topic_id))
        .first()
    )
    if topic is None:
        raise NotFound()
    return topic


# --- the site's pages ----------------------------------------------------------------------------------


def group_get_by_slug(slug: str, *, viewer) -> Group:
    """The group at its `public_url` (/groups/<slug>), matched ignoring case as the slug is unique so;
    404 for an unknown or hidden one (staff excepted)."""
    group = group_queryset(viewer=viewer).filter(slug__iexact=slug).first()
    if group is None:
        raise NotFound()
    return group


def group_follow_state(*, group, viewer) -> dict:
    """The follow button's state: {"count": followers, "following": bool}, in one query."""
    uid = viewer_id(viewer)
    row = GroupFollow.objects.filter(group=group).aggregate(
        count=Count("pk"), mine=Count("pk", filter=Q(user_id=uid if uid is not None else -1)),
    )
    return {"count": row["count"] or 0, "following": bool(row["mine"])}
