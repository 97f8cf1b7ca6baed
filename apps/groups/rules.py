"""Who may do what in a group, and the state machines of spec §3 as data. Pure functions."""

# spec §3 Group Thing rows: (featured now, featured asked for) → why the change is refused, or None.
RANK_TRANSITIONS: dict[tuple[bool, bool], str | None] = {
    (False, True): None,
    (True, False): None,
    (True, True): "The Thing is already featured. It must first be removed with rank 0.",
    (False, False): "The Thing is not featured.",
}
RANK_SLOT_TAKEN = "Another Thing is already featured at rank {rank}."

# spec §3 Group topic rows: pin → pinned, unpin → unpinned; repeating is a no-op (STYLE.md).
PIN_TARGET = {"pin": True, "unpin": False}


def _user_id(user):
    return user.pk if user is not None and user.is_authenticated else None


def group_is_owner(user, group) -> bool:
    return _user_id(user) is not None and group.creator_id == user.pk


def group_can_edit(user, group) -> bool:
    """PATCH, image, featured ranks, pins, removing members: the group owner (its creator)."""
    return group_is_owner(user, group)


def group_member_remove_blocker(user, group, member_id: int) -> str | None:
    """Why `user` may not remove `member_id` from `group` as a rule (400), or None. 403s are separate."""
    if member_id == group.creator_id:
        return "The group owner cannot leave their own group."
    return None


def group_member_can_remove(user, group, member_id: int) -> bool:
    """spec §4.8: owners may name a member; everyone else only themselves."""
    return group_is_owner(user, group) or _user_id(user) == member_id


def group_thing_can_remove(user, group, entry) -> bool:
    """Members may take out what they added; the owner anything."""
    return group_is_owner(user, group) or entry.added_by_id == _user_id(user)


def group_thing_rank_blocker(current_rank: int, new_rank: int) -> str | None:
    return RANK_TRANSITIONS[(current_rank > 0, new_rank > 0)]


def group_topic_can_edit(user, topic) -> bool:
    return _user_id(user) is not None and topic.user_id == user.pk
