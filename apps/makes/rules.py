"""Pure predicates of copies (makes): who may change one, and why an action is refused (400)."""


def _user_id(user):
    return user.pk if user is not None and user.is_authenticated else None


def make_is_creator(user, make) -> bool:
    return _user_id(user) is not None and make.creator_id == user.pk


def make_can_edit(user, make) -> bool:
    """PATCH, DELETE, images: the make's creator only (the Thing's creator does not own others' makes)."""
    return make_is_creator(user, make)


def make_create_blockers(thing) -> list[str]:
    """Why no make of `thing` can be posted now. A draft has nothing to print yet; one's own published
    Thing may be made (designers show their own prints too)."""
    if not thing.is_published:
        return ["Only a published Thing can have copies."]
    return []


def make_like_blockers(user, make) -> list[str]:
    """spec §3 Like rows: a user cannot like or unlike their own copy (400)."""
    if make_is_creator(user, make):
        return ["You cannot like your own copy."]
    return []
