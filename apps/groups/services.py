"""Writes of groups (spec §4.8, §3 Group Thing and Group topic rows). Changes to a group's Things and
featured ranks lock the group row first, so concurrent requests run one at a time per group."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.core.domain.exceptions import NotFound, PermissionDenied, RuleViolation, ValidationFailed
from apps.core.domain.services import model_update
from apps.groups import rules
from apps.groups.models import Group, GroupFollow, GroupMember, GroupThing, GroupTopic
from apps.uploads import rules as upload_rules
from apps.uploads.flow.services import object_delete_on_commit

SLUG_TAKEN = "A group with this slug already exists."


def _lock(group) -> Group:
    locked = Group.objects.select_for_update().filter(pk=group.pk).first()
    if locked is None:  # deleted by a concurrent request
        raise NotFound()
    return locked


def _slug_taken() -> ValidationFailed:
    return ValidationFailed(f"slug: {SLUG_TAKEN}", errors={"slug": [SLUG_TAKEN]})


def group_create(*, creator, name: str, slug: str, description: str) -> Group:
    """A new group; its creator is its owner and first member. 400 if the slug is taken (any case)."""
    if Group.objects.filter(slug__iexact=slug).exists():
        raise _slug_taken()
    try:
        with transaction.atomic():
            group = Group.objects.create(creator=creator, name=name, slug=slug, description=description)
            GroupMember.objects.create(group=group, user=creator)
    except IntegrityError:  # the same slug created concurrently
        raise _slug_taken() from None
    return group


def group_update(*, group, user, data: dict) -> Group:
    """Change name and/or description (owner only)."""
    with transaction.atomic():
        group = _lock(group)
        if not rules.group_can_edit(user, group):
            raise PermissionDenied()
        model_update(group, data=data, fields=["name", "description"], also=["modified"])
    return group


def group_image_finalize(upload, *, size: int) -> None:
    """Upload finalizer (apps.uploads): the upload becomes the group's image; the old object goes.

    Side effects: deletes the previous image object from the store, on commit.
    """
    group = Group.objects.select_for_update().filter(pk=upload.target_id).only("pk", "image").first()
    if group is None:
        raise LookupError(upload.target_id)
    previous = group.image
    group.image = upload.key
    group.save(update_fields=["image"])
    # Only objects the upload flow created are ours to delete.
    if previous and previous != upload.key and upload_rules.key_is_ours(previous):
        object_delete_on_commit(previous)


def group_join(*, group, user) -> None:
    """Join a group; joining again is a no-op."""
    GroupMember.objects.get_or_create(group=group, user=user)


def group_follow(*, group, user) -> None:
    """Follow a group; following again is a no-op (group_follow_unique)."""
    GroupFollow.objects.get_or_create(group=group, user=user)


def group_unfollow(*, group, user) -> None:
    """Stop following a group; not following already is fine."""
    GroupFollow.objects.filter(group=group, user=user).delete()


def group_member_remove(*, group, user, member_id: int) -> None:
    """spec §4.8 DELETE /groups/{id}/members/{user_id}: leave, or (owner) remove a member. 403 for
    someone else's membership unless the owner; 400 for the owner themselves. Not a member: no-op."""
    if not rules.group_member_can_remove(user, group, member_id):
        raise PermissionDenied()
    reason = rules.group_member_remove_blocker(user, group, member_id)
    if reason:
        raise RuleViolation(reason)
    GroupMember.objects.filter(group=group, user_id=member_id).delete()


def _require_member(group, user) -> None:
    if not GroupMember.objects.filter(group=group, user_id=user.pk).exists():
        raise PermissionDenied()


def group_thing_add(*, group, thing, user) -> GroupThing:
    """Add a Thing (members only); adding it again is a no-op."""
    with transaction.atomic():
        group = _lock(group)
        _require_member(group, user)
        entry, _ = GroupThing.objects.get_or_create(group=group, thing_id=thing.pk, defaults={"added_by": user})
    return entry


def group_thing_remove(*, group, thing_id: int, user) -> None:
    """Take a Thing out: members only (403); 400 if not in the group (spec §7); then the owner, or the
    member who added it (403)."""
    with transaction.atomic():
        group = _lock(group)
        _require_member(group, user)
        entry = GroupThing.objects.filter(group=group, thing_id=thing_id).first()
        if entry is None:
            raise RuleViolation("The Thing is not in the group.")
        if not rules.group_thing_can_remove(user, group, entry):
            raise PermissionDenied()
        entry.delete()


def group_thing_rank_set(*, group, thing_id: int, user, rank: int) -> GroupThing:
    """spec §3 Group Thing rows: feature a Thing in slot 1..3, or take it out with 0. Owner only.
    400: not in the group, featured → featured, not featured → 0, slot already taken."""
    with transaction.atomic():
        # The group lock serialises rank changes, so the slot check below cannot race.
        group = _lock(group)
        if not rules.group_can_edit(user, group):
            raise PermissionDenied()
        entry = GroupThing.objects.select_for_update().filter(group=group, thing_id=thing_id).first()
        if entry is None:
            raise RuleViolation("The Thing is not in the group.")
        reason = rules.group_thing_rank_blocker(entry.rank, rank)
        if reason:
            raise RuleViolation(reason)
        if rank > 0 and GroupThing.objects.filter(group=group, rank=rank).exists():
            raise RuleViolation(rules.RANK_SLOT_TAKEN.format(rank=rank))
        entry.rank = rank
        entry.save(update_fields=["rank"])
    return entry


def group_topic_create(*, group, user, name: str, body: str) -> GroupTopic:
    """A new topic (members only, 403)."""
    _require_member(group, user)
    topic = GroupTopic.objects.create(group=group, user=user, name=name, body=body)
    Group.objects.filter(pk=group.pk).update(modified=timezone.now())
    return topic


def group_topic_update(*, topic, user, data: dict) -> GroupTopic:
    """Change name and/or body (author only, 403)."""
    with transaction.atomic():
        topic = GroupTopic.objects.select_for_update().get(pk=topic.pk)
        if not rules.group_topic_can_edit(user, topic):
            raise PermissionDenied()
        model_update(topic, data=data, fields=["name", "body"], also=["modified"])
    return topic


def group_topic_pin_set(*, topic, user, action: str) -> GroupTopic:
    """spec §3 Group topic rows: pin/unpin (group owner only, 403). Repeating is a no-op."""
    pinned = rules.PIN_TARGET[action]
    with transaction.atomic():
        topic = GroupTopic.objects.select_for_update().select_related("group").get(pk=topic.pk)
        if not rules.group_can_edit(user, topic.group):
            raise PermissionDenied()
        if topic.pinned != pinned:
            topic.pinned = pinned
            topic.save(update_fields=["pinned"])  # a pin is not an edit: `modified` stays
    return topic
