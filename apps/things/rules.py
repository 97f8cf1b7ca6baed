"""Pure predicates of Things (no queries beyond attributes already loaded)."""


def thing_is_owner(viewer, thing) -> bool:
    return viewer is not None and viewer.is_authenticated and viewer.pk == thing.creator_id


def thing_can_view(viewer, thing) -> bool:
    return thing.is_published or thing_is_owner(viewer, thing)


def thing_can_edit(viewer, thing) -> bool:
    return thing_is_owner(viewer, thing)


def thing_publish_blockers(thing) -> list[str]:
    """spec §3: why an unpublished Thing cannot be published (empty list: it can)."""
    reasons = []
    if not thing.name.strip():
        reasons.append("Name cannot be blank.")
    if not thing.description.strip():
        reasons.append("Description cannot be blank.")
    if not thing.license:
        reasons.append("A license is required.")
    return reasons


def thing_like_blockers(viewer, thing) -> list[str]:
    """spec §3: a user cannot like or unlike their own Thing (400)."""
    if thing_is_owner(viewer, thing):
        return ["You cannot like your own Thing."]
    return []
