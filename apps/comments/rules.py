"""Who may do what with a comment, and where a reply goes. Pure functions over loaded attributes."""

# Threads nest five levels deep (depth 0 to 4). A reply to a comment at the deepest level is added next
# to it (same parent), so a long back-and-forth continues at that level instead of drifting rightwards
# forever; the reply's parent_id says where it went.
COMMENT_MAX_DEPTH = 4
# GET …/threaded-comments answers a whole target in one response: at most this many comments, the oldest
# (a reply is always newer than its parent, so the cut never leaves a reply without its parent).
THREADED_MAX_COMMENTS = 2000

REPLY_TO_DELETED = "You cannot reply to a deleted comment."


def _user_id(user):
    return user.pk if user is not None and user.is_authenticated else None


def comment_is_author(user, comment) -> bool:
    return _user_id(user) is not None and comment.user_id == user.pk


def comment_can_edit(user, comment) -> bool:
    """PATCH: the author only (a deleted placeholder has no author any more)."""
    return comment_is_author(user, comment) and not comment.is_deleted


def comment_target_moderator_ids(comment) -> set[int]:
    """Who, besides the author, may delete a comment: the owner of what it is on.

    Thing: its creator. Make: the make's creator and the creator of the Thing it is a make of. Group
    topic: the group's owner. Reads the target relations, which the selectors load with the comment.
    """
    if comment.target_type == "thing":
        return {comment.thing.creator_id}
    if comment.target_type == "make":
        return {comment.make.creator_id, comment.make.thing.creator_id}
    return {comment.topic.group.creator_id}


def comment_can_delete(user, comment) -> bool:
    user_id = _user_id(user)
    if user_id is None:
        return False
    return comment.user_id == user_id or user_id in comment_target_moderator_ids(comment)


def comment_reply_blockers(comment) -> list[str]:
    """Why `comment` cannot be replied to (400), or []. Hidden comments never get here (404)."""
    if comment.is_deleted:
        return [REPLY_TO_DELETED]
    return []


def comment_reply_parent_id(comment) -> int:
    """The parent a reply to `comment` is stored under: `comment` itself, or, at the deepest level, its
    parent (see COMMENT_MAX_DEPTH)."""
    if comment.depth >= COMMENT_MAX_DEPTH:
        return comment.parent_id
    return comment.pk


def comment_becomes_placeholder(*, has_replies: bool) -> bool:
    """spec issue 5: a deleted comment with replies keeps its place in the thread, emptied; without
    replies it is removed."""
    return has_replies
