"""Reads of comments (spec §4.6, and the comment rows of §4.2, §4.4, §4.8).

Visibility, in one place:
- a target (Thing, make, group topic) is read with the rules of its own app: a Thing with the spec's
  401/403/404 matrix on the /things/{id}/… paths; a make when it and its Thing are visible; a topic by
  every token user, unless its group is hidden. Moderators' hidden items are gone for everyone but staff.
- a comment is visible when its target is and it is not hidden itself. Anything not visible under
  /comments/{id}… or named in a request body is 404, like a missing one (no draft is ever revealed).
- deleted placeholders stay visible: they keep their place in the thread.
"""
from django.db.models import QuerySet

from apps.comments import rules
from apps.comments.models import Comment
from apps.core.domain.exceptions import NotAuthenticated, NotFound, PermissionDenied
from apps.core.domain.moderation import viewer_sees_hidden, visible_q
from apps.core.pipeline.lookups import id_or_404
from apps.groups.models import GroupMember, GroupTopic
from apps.makes.models import Make
from apps.things import rules as thing_rules
from apps.things.models import Thing
from apps.things.selectors import thing_get_for_viewer

TARGET_FIELD: dict[str, str] = {Comment.TargetType.THING: "thing", Comment.TargetType.MAKE: "make",
                Comment.TargetType.GROUP_TOPIC: "topic"}
# The Thing, make and topic columns a comment's checks read; their long texts stay in the database.
_DEFERRED = (
    "thing__description", "thing__instructions", "thing__search_vector",
    "make__description", "make__thing__description", "make__thing__instructions",
    "make__thing__search_vector",
    "topic__body", "topic__group__description",
)


def target_type_of(target) -> str:
    if isinstance(target, Thing):
        return Comment.TargetType.THING
    if isinstance(target, Make):
        return Comment.TargetType.MAKE
    if isinstance(target, GroupTopic):
        return Comment.TargetType.GROUP_TOPIC
    raise TypeError(f"comments cannot be on {type(target).__name__}")


# --- targets -----------------------------------------------------------------------------------------


def _hidden_from(viewer, obj) -> bool:
    return obj.is_hidden and not viewer_sees_hidden(viewer)


def _thing_visible(viewer, thing) -> bool:
    return not _hidden_from(viewer, thing) and thing_rules.thing_can_view(viewer, thing)


def _make_visible(viewer, make) -> bool:
    return not _hidden_from(viewer, make) and _thing_visible(viewer, make.thing)


def _topic_visible(viewer, topic) -> bool:
    # Every token user reads every topic (apps.groups), unless its group is hidden.
    return not _hidden_from(viewer, topic.group)


def comment_thing_get(thing_id, *, viewer) -> Thing:
    """The Thing of /things/{id}/…comments: the Thing's own matrix (spec §4.2 / §7: 401, 403, 404)."""
    thing = thing_get_for_viewer(thing_id, viewer=viewer, detail=False)
    if _hidden_from(viewer, thing):
        raise NotFound()
    return thing


def comment_make_get(make_id, *, viewer) -> Make:
    """The make of /copies/{id}/…comments: 404 when missing or not visible (hidden, or its Thing is)."""
    make = Make.objects.select_related("thing", "creator").defer(
        "description", "thing__description", "thing__instructions", "thing__search_vector"
    ).filter(pk=id_or_404(make_id)).first()
    if make is None or not _make_visible(viewer, make):
        raise NotFound()
    return make


def comment_topic_get(topic_id, *, viewer) -> GroupTopic:
    """The topic of /group-topics/{id}/…comments: 404 when missing or its group is hidden."""
    topic = GroupTopic.objects.select_related("user", "group").defer("body", "group__description").filter(
        pk=id_or_404(topic_id)
    ).first()
    if topic is None or not _topic_visible(viewer, topic):
        raise NotFound()
    return topic


def comment_target_get(target_type: str, target_id, *, viewer):
    """The target named in a POST /comments/ body: 404 when missing or not visible to the caller (a
    body never learns the Thing matrix's 403: a comment never reveals someone else's draft)."""
    if target_type == Comment.TargetType.THING:
        try:
            return comment_thing_get(target_id, viewer=viewer)
        except (NotAuthenticated, PermissionDenied):
            raise NotFound() from None
    if target_type == Comment.TargetType.MAKE:
        return comment_make_get(target_id, viewer=viewer)
    return comment_topic_get(target_id, viewer=viewer)


def comment_target_check_writable(target, *, viewer) -> None:
    """403 when `viewer` may read but not write comments on `target`: a group topic's comments are for
    the members of its group (spec §4.8, issue 5). The services check it again when they write."""
    if isinstance(target, GroupTopic) and not GroupMember.objects.filter(
        group_id=target.group_id, user_id=viewer.pk
    ).exists():
        raise PermissionDenied()


# --- comments ----------------------------------------------------------------------------------------


def comment_queryset(*, viewer) -> QuerySet:
    """Comments `viewer` may see once their target is visible: not hidden (staff see hidden ones), with
    their authors joined. Creation order (ids grow with time; a reply is always after its parent)."""
    qs = Comment.objects.filter(visible_q(viewer)).select_related("user").order_by("id")
    # Staff see hidden comments with a banner naming the moderator (templates/core/_hidden_banner.html).
    return qs.select_related("hidden_by") if viewer_sees_hidden(viewer) else qs


def comment_get_for_viewer(comment_id, *, viewer) -> Comment:
    """One comment with its target (and what the rules read of it) in one query; 404 when missing,
    hidden, or on a target the caller may not see."""
    comment = (
        comment_queryset(viewer=viewer)
        .select_related("thing", "make__thing", "topic__group")
        .defer(*_DEFERRED)
        .filter(pk=id_or_404(comment_id))
        .first()
    )
    if comment is None or not comment_target_visible(viewer, comment):
        raise NotFound()
    return comment


def comment_target_visible(viewer, comment) -> bool:
    if comment.target_type == Comment.TargetType.THING:
        return _thing_visible(viewer, comment.thing)
    if comment.target_type == Comment.TargetType.MAKE:
        return _make_visible(viewer, comment.make)
    return _topic_visible(viewer, comment.topic)


def comment_get_editable(comment_id, *, viewer) -> Comment:
    """A comment the caller may change: 404 as comment_get_for_viewer, then 403 unless the author."""
    comment = comment_get_for_viewer(comment_id, viewer=viewer)
    if not rules.comment_can_edit(viewer, comment):
        raise PermissionDenied()
    return comment


def comment_get_deletable(comment_id, *, viewer) -> Comment:
    """A comment the caller may delete: 404 as comment_get_for_viewer, then 403 unless the author or
    the owner of what it is on."""
    comment = comment_get_for_viewer(comment_id, viewer=viewer)
    if not rules.comment_can_delete(viewer, comment):
        raise PermissionDenied()
    return comment


def comment_get_on_target(comment_id, *, target, viewer) -> Comment | None:
    """The comment `comment_id` if it is a visible comment on `target`, else None (the caller decides
    the error: a `parent_id` naming another target's comment is bad input, not a missing page)."""
    field = TARGET_FIELD[target_type_of(target)]
    try:
        comment = comment_get_for_viewer(comment_id, viewer=viewer)
    except NotFound:
        return None
    return comment if getattr(comment, f"{field}_id") == target.pk else None


def comment_list_for_target(*, target, viewer, roots_only: bool = False) -> QuerySet:
    """spec §4.2/§4.4/§4.8 …/comments (every comment, unthreaded) and …/root-comments (top level only),
    oldest first. Deleted placeholders are listed: they keep their place."""
    comments = comment_queryset(viewer=viewer).filter(**{TARGET_FIELD[target_type_of(target)]: target.pk})
    if roots_only:
        comments = comments.filter(parent__isnull=True)
    return comments


def comment_list_replies(*, parent, viewer) -> QuerySet:
    """spec §4.6 GET /comments/{parentId}/replies: the direct replies, oldest first."""
    return comment_queryset(viewer=viewer).filter(parent_id=parent.pk)


def comment_thread_list(*, target, viewer) -> tuple[list[Comment], bool]:
    """spec §2 "Threaded comment result": every comment of `target` that has a place in its thread, in
    one query, oldest first, and whether the list was cut at rules.THREADED_MAX_COMMENTS (the oldest are
    kept). A reply under a comment the caller may not see (hidden) has no place to hang and is left out,
    and so is a deleted placeholder left with no visible reply. serializers.ThreadedCommentsSerializer
    shapes the answer.
    """
    limit = rules.THREADED_MAX_COMMENTS
    rows = list(comment_list_for_target(target=target, viewer=viewer)[: limit + 1])
    truncated = len(rows) > limit
    placed: dict[int, Comment] = {}
    for comment in rows[:limit]:  # id order: a parent always comes before its replies
        if comment.parent_id is None or comment.parent_id in placed:
            placed[comment.pk] = comment
    reply_counts: dict[int, int] = {}
    for comment in placed.values():
        if comment.parent_id is not None:
            reply_counts[comment.parent_id] = reply_counts.get(comment.parent_id, 0) + 1
    for pk in sorted(placed, reverse=True):  # replies before parents: placeholders empty out bottom-up
        comment = placed[pk]
        if comment.is_deleted and not reply_counts.get(pk):
            del placed[pk]
            if comment.parent_id is not None:
                reply_counts[comment.parent_id] -= 1
    return list(placed.values()), truncated


# --- read once for a whole answer (apps.core.pipeline.batch: the `thingiverse` comment's fields) ---------


def comment_ids_with_replies(comment_ids: list[int], *, sees_hidden: bool) -> set[int]:
    """Which of these comments have a reply a viewer who does (not) see hidden comments is shown: one
    statement for all of them."""
    replies = Comment.objects.filter(parent_id__in=comment_ids)
    if not sees_hidden:
        replies = replies.filter(is_hidden=False)
    return set(replies.values_list("parent_id", flat=True).distinct())


def comment_authors(comment_ids: list[int], *, sees_hidden: bool) -> dict[int, str | None]:
    """The username of each of these comments' authors (None: deleted, or hidden from such a viewer):
    one statement for all of them."""
    rows = Comment.objects.filter(pk__in=comment_ids).values_list("pk", "user__username", "is_hidden")
    return {pk: (None if hidden and not sees_hidden else username) for pk, username, hidden in rows}


def topic_group_slugs(topic_ids: list[int]) -> dict[int, str]:
    """The slug of each of these topics' group (a topic's site page is under it): one statement."""
    return dict(GroupTopic.objects.filter(pk__in=topic_ids).values_list("pk", "group__slug"))
