"""Every state change of a comment: post, reply, edit, delete, moderation counters, account deletion.

Counters: Thing.comment_count, Make.comment_count and GroupTopic.comment_count are the number of the
target's visible (not hidden), non-deleted comments. Each comment row says whether it is `counted`;
every change reconciles that flag with an F() update of the target's counter in the same transaction,
under the comment's row lock, so concurrent posts, deletes and moderators' hides keep the counters exact.

Locks are taken in one direction: comment rows first (a reply before its parent), then the target's row
(the counter UPDATE), so concurrent writes of one thread wait for each other instead of deadlocking.
"""
from collections import Counter
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.activity.models import Event
from apps.activity.services import event_record
from apps.comments import rules
from apps.comments.markup import comment_body_render
from apps.comments.models import Comment
from apps.comments.selectors import TARGET_FIELD, target_type_of
from apps.core.domain.exceptions import NotFound, PermissionDenied, RuleViolation
from apps.core.domain.moderation import viewer_sees_hidden
from apps.core.domain.services import model_update
from apps.groups.counters import topic_count_add
from apps.groups.links import topic_path
from apps.groups.models import GroupMember, GroupTopic
from apps.makes.counters import make_count_add
from apps.notifications import services as notification_services
from apps.accounts.links import iso8601
from apps.things.counters import thing_count_add
from apps.things.events import thing_event
from apps.things.models import Thing
from apps.things.wire import user_event_dict

# Each target's counters have one owner; comments move comment_count through it.
COUNT_ADD: dict[str, Callable[[int, str, int], int]] = {
    Comment.TargetType.THING: thing_count_add,
    Comment.TargetType.MAKE: make_count_add,
    Comment.TargetType.GROUP_TOPIC: topic_count_add,
}


def _count_adjust(target_type: str, target_id: int, delta: int) -> bool:
    """Move the target's comment_count by `delta`; False when the target is gone (deleted meanwhile).

    The UPDATE also locks the target row until commit, so a concurrent delete of the target either
    waits for this comment or has already happened (then nothing matches). Never below 0."""
    return COUNT_ADD[target_type](target_id, "comment_count", delta) > 0


def _counted_set(comment: Comment, counted: bool) -> None:
    """Include or leave out a locked comment row from its target's counter; no-op when already so."""
    if comment.counted == counted:
        return
    Comment.objects.filter(pk=comment.pk).update(counted=counted)
    comment.counted = counted
    _count_adjust(comment.target_type, comment.target_id, 1 if counted else -1)


def _lock(comment_id: int) -> Comment | None:
    return Comment.objects.select_for_update().filter(pk=comment_id).first()


def _require_member(topic: GroupTopic, user) -> None:
    """spec §4.8 / issue 5: only members of the topic's group write in it (403)."""
    if not GroupMember.objects.filter(group_id=topic.group_id, user_id=user.pk).exists():
        raise PermissionDenied()


def _target_owner(target):
    """Who hears of a new top-level comment: the Thing's, make's or topic's creator."""
    return target.user if isinstance(target, GroupTopic) else target.creator


def _thing_commented(thing, comment: Comment) -> None:
    """thing_commented (apps/webhooks/catalog.py) for the apps the Thing's creator authorized."""
    thing_event(thing, "thing_commented", comment=lambda: {
        "id": comment.pk, "body": comment.body, "parent_id": comment.parent_id, "added": iso8601(comment.added),
        "user": user_event_dict(comment.user),
    })


def _where(comment: Comment, target: Any = None) -> tuple[str, str]:
    """The name and page of what a comment is on, for its notifications (target rows the callers loaded)."""
    anchor = f"#comment-{comment.pk}"
    if comment.target_type == Comment.TargetType.THING:
        thing: Any = target if target is not None else comment.thing
        return thing.name, f"/thing:{thing.pk}{anchor}"
    if comment.target_type == Comment.TargetType.MAKE:
        make: Any = target if target is not None else comment.make
        return f"Make of {make.thing.name}", f"/make:{make.pk}{anchor}"
    topic: Any = target if target is not None else comment.topic
    return topic.name, topic_path(topic.group, topic.pk) + anchor


def _notify(*, comment: Comment, actor, recipients: list[tuple[str, Any]], target: Any = None) -> None:
    """Notifications of a new comment: (kind, recipient) pairs, each recipient told once."""
    subject, url = _where(comment, target)
    told: set[int] = set()
    for kind, recipient in recipients:
        if recipient is None or recipient.pk in told:
            continue
        told.add(recipient.pk)
        notification_services.notification_send(
            recipient=recipient, actor=actor, kind=kind, key=f"comment:{comment.pk}", subject=subject, url=url,
            body=comment.body,
        )


def comment_create(*, user, target, body: str) -> Comment:
    """A new top-level comment on a Thing, make or group topic (members only for a topic, 403).

    The caller already checked that `user` may see the target. Side effects: the target's comment_count
    goes up by one; a `comment` event and a notification for the target's creator (none for one's own)."""
    target_type = target_type_of(target)
    if target_type == Comment.TargetType.GROUP_TOPIC:
        _require_member(target, user)
    body_html = comment_body_render(body)
    with transaction.atomic():
        if not _count_adjust(target_type, target.pk, 1):
            raise NotFound()  # the target was deleted since the view read it
        comment = Comment.objects.create(
            target_type=target_type, **{TARGET_FIELD[target_type]: target}, user=user, body=body,
            body_html=body_html, counted=True,
        )
        event_record(
            recipient=_target_owner(target), actor=user, kind=Event.Kind.COMMENT, target_type="comment",
            target_id=comment.pk,
        )
        if target_type == Comment.TargetType.THING:
            _thing_commented(target, comment)
        _notify(comment=comment, actor=user, recipients=[("comment", _target_owner(target))], target=target)
    return comment


def comment_reply(*, user, comment: Comment, body: str) -> Comment:
    """A reply to `comment` (loaded through a visibility-aware selector), on the same target.

    400 for a deleted comment; 403 for a group topic's comment when not a member. At the deepest level
    the reply goes next to `comment` (rules.comment_reply_parent_id). Side effects: the target's
    comment_count goes up by one; a `comment` event for the author of the comment replied to; notifications
    for that author (a reply) and for the target's creator (a comment)."""
    if comment.topic is not None:  # a group topic's comment
        _require_member(comment.topic, user)
    reasons = rules.comment_reply_blockers(comment)
    if reasons:
        raise RuleViolation(reasons[0])
    body_html = comment_body_render(body)
    with transaction.atomic():
        # The lock makes a concurrent delete of `comment` wait (or come first: then 404), so it can
        # never be removed as childless while this reply is being added under it.
        replied = _lock(comment.pk)
        if replied is None or (replied.is_hidden and not viewer_sees_hidden(user)):
            raise NotFound()
        reasons = rules.comment_reply_blockers(replied)
        if reasons:
            raise RuleViolation(reasons[0])
        parent_id = rules.comment_reply_parent_id(replied)
        if parent_id != replied.pk:
            _lock(parent_id)  # the reply goes under it: the same guard, one level up
        depth = replied.depth + 1 if parent_id == replied.pk else replied.depth
        if not _count_adjust(replied.target_type, replied.target_id, 1):
            raise NotFound()
        reply = Comment.objects.create(
            target_type=replied.target_type, thing_id=replied.thing_id, make_id=replied.make_id,
            topic_id=replied.topic_id, parent_id=parent_id, depth=depth, user=user, body=body,
            body_html=body_html, counted=True,
        )
        if comment.user is not None:
            event_record(
                recipient=comment.user, actor=user, kind=Event.Kind.COMMENT, target_type="comment",
                target_id=reply.pk,
            )
        if reply.thing_id is not None:
            # The selectors load a comment with its Thing (comment_get_for_viewer): no query here then.
            thing = comment.thing if comment.thing_id == reply.thing_id else Thing.objects.get(pk=reply.thing_id)
            _thing_commented(thing, reply)
        # The author replied to hears of it; so does the owner of what it is on (once).
        on: Any = comment.thing or comment.make or comment.topic
        owner = _target_owner(on)
        _notify(comment=reply, actor=user, recipients=[("reply", comment.user), ("comment", owner)],
                target=on)
    return reply


def comment_update(*, comment: Comment, user, body: str) -> Comment:
    """Change the body (the author only, 403); the HTML is rendered again."""
    body_html = comment_body_render(body)
    with transaction.atomic():
        row = _lock(comment.pk)
        if row is None:
            raise NotFound()
        if not rules.comment_can_edit(user, row):
            raise PermissionDenied()
        if row.body != body:
            model_update(row, data={"body": body, "body_html": body_html, "edited_at": timezone.now()},
                         fields=["body", "body_html", "edited_at"], also=["modified"], changed_only=False)
    comment.body, comment.body_html, comment.modified = row.body, row.body_html, row.modified
    comment.edited_at = row.edited_at
    return comment


def comment_delete(*, comment: Comment, user) -> None:
    """spec §4.6 DELETE: the author, or the owner of the commented item (rules.comment_can_delete, 403).

    A comment with replies becomes a placeholder that keeps its place (rules.comment_becomes_placeholder);
    one without is removed, and so are the placeholders above it left with no reply. Deleting again is a
    no-op. Side effects: the target's comment_count goes down by one."""
    if not rules.comment_can_delete(user, comment):
        raise PermissionDenied()
    comment_remove(comment_id=comment.pk)


def comment_remove(*, comment_id: int) -> None:
    """Delete one comment as comment_delete does, without the permission check (admin, trusted code)."""
    with transaction.atomic():
        row = _lock(comment_id)
        if row is None or row.is_deleted:
            return
        has_replies = Comment.objects.filter(parent_id=row.pk).exists()
        if rules.comment_becomes_placeholder(has_replies=has_replies):
            row.is_deleted, row.body, row.body_html, row.user = True, "", "", None
            row.save(update_fields=["is_deleted", "body", "body_html", "user", "modified"])
            _counted_set(row, False)
            return
        _counted_set(row, False)
        Comment.objects.filter(pk=row.pk).delete()
        _prune({row.parent_id} if row.parent_id is not None else set())


def _prune(candidate_ids: set[int]) -> None:
    """Remove the deleted placeholders among `candidate_ids` left without replies, then their parents in
    turn. Each candidate is locked before its replies are counted: two replies of one placeholder deleted
    at once then see each other's commit, and the second removes the placeholder."""
    while candidate_ids:
        locked = list(
            Comment.objects.select_for_update().filter(pk__in=candidate_ids, is_deleted=True)
            .order_by("pk").values_list("pk", "parent_id")
        )
        if not locked:
            return
        with_replies = set(
            Comment.objects.filter(parent_id__in=[pk for pk, _ in locked]).values_list("parent_id", flat=True)
        )
        doomed = [(pk, parent_id) for pk, parent_id in locked if pk not in with_replies]
        if not doomed:
            return
        # Placeholders are never counted, so no counter moves.
        Comment.objects.filter(pk__in=[pk for pk, _ in doomed]).delete()
        candidate_ids = {parent_id for _, parent_id in doomed if parent_id is not None}


def comment_count_reconcile(*, comment: Comment) -> None:
    """After a moderator hides or unhides a comment (admin hooks): count it again exactly when it is
    visible and not deleted."""
    with transaction.atomic():
        row = _lock(comment.pk)
        if row is not None:
            _counted_set(row, not row.is_hidden and not row.is_deleted)


def comments_release_for_user(*, user) -> None:
    """A departing user's comments vanish, keeping counters exact (a release hook of account deletion,
    accounts.release, inside its transaction): those with replies become placeholders, the rest are removed, and so are
    placeholders left with no reply. The cascade alone would leave every counter too high."""
    rows = list(
        Comment.objects.select_for_update().filter(user=user).order_by("pk")
        .values_list("pk", "counted", "target_type", "thing_id", "make_id", "topic_id")
    )
    if not rows:
        return
    lowered: Counter[tuple[str, int]] = Counter()
    for _, counted, target_type, thing_id, make_id, topic_id in rows:
        if counted:
            target_id = {"thing": thing_id, "make": make_id, "group_topic": topic_id}[target_type]
            lowered[(target_type, target_id)] += 1
    ids = [row[0] for row in rows]
    Comment.objects.filter(pk__in=ids).update(
        is_deleted=True, body="", body_html="", user=None, counted=False
    )
    for (target_type, target_id), n in sorted(lowered.items()):  # a fixed order: no deadlock between two
        _count_adjust(target_type, target_id, -n)
    _prune(set(ids))
