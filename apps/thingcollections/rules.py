"""Who may change a collection (spec §4.5). Pure functions: `application` is the calling OAuth app, or
None for the user's own site session, which is not limited by the app rules."""


def _owns(user, collection) -> bool:
    return user is not None and user.is_authenticated and collection.creator_id == user.pk


def collection_can_add_thing(user, collection) -> bool:
    """spec §4.5: apps can add to any collection the user owns."""
    return _owns(user, collection)


def collection_can_edit(user, collection, *, application) -> bool:
    """PATCH and DELETE: the owner, and through the API only the app that created the collection."""
    if not _owns(user, collection):
        return False
    return application is None or collection.created_by_app_id == application.pk


def collection_can_remove_thing(user, collection, entry, *, application) -> bool:
    """spec §4.5: apps may remove only the Things they added."""
    if not _owns(user, collection):
        return False
    return application is None or entry.added_by_app_id == application.pk
