"""Pure predicates of Things (no queries beyond attributes already loaded)."""
from apps.core.domain.moderation import viewer_sees_hidden
from apps.things.normalize import tag_normalize

THING_NAME_MAX_LENGTH = 255
THING_TEXT_MAX_LENGTH = 50000  # description and instructions (the model's cap; TextField does not enforce it)
THING_MAX_TAGS = 50
TAG_MAX_LENGTH = 100  # Tag.name's column
THING_MAX_ANCESTORS = 50


def thing_is_owner(viewer, thing) -> bool:
    return viewer is not None and viewer.is_authenticated and viewer.pk == thing.creator_id


def thing_can_view(viewer, thing) -> bool:
    """Published or one's own; a Thing hidden by a moderator is gone for everyone but staff; a private
    Thing is its creator's alone (issue 22 #5)."""
    if thing.is_hidden and not viewer_sees_hidden(viewer):
        return False
    if thing.is_private:
        return thing_is_owner(viewer, thing)
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


def thing_tags_normalize(raw_tags) -> tuple[list[str], list[str]]:
    """spec §2 Tag: each tag normalised; duplicates ignoring case dropped, the first spelling kept.

    Returns (names, errors): a tag that normalises to nothing or grows past the column is an error,
    never silently dropped, so the client learns its tag was not stored.
    """
    names: list[str] = []
    seen: set[str] = set()
    errors: list[str] = []
    # Messages name the tag by position, never echo it: the first one also travels in the X-Error header.
    for position, raw in enumerate(raw_tags, start=1):
        name = tag_normalize(raw)
        if not name:
            errors.append(
                f'Tag {position} has nothing left once normalised (letters, digits, "_" and "-" stay).'
            )
        elif len(name) > TAG_MAX_LENGTH:
            errors.append(f"Tag {position} is longer than {TAG_MAX_LENGTH} characters.")
        elif name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    if len(names) > THING_MAX_TAGS:
        errors.append(f"A Thing has at most {THING_MAX_TAGS} tags.")
    return names, errors


def thing_package_blockers(thing) -> list[str]:
    """spec §4.2 package-url: a ZIP needs files to put in it."""
    if thing.file_count == 0:
        return ["This Thing has no files to package yet."]
    return []
