"""The Thing as webhook events carry it (apps/webhooks/catalog.py): a small, fixed shape of what the API
shows the owner's token, built from the row alone (no per-viewer annotations, no pictures)."""
from apps.accounts.links import iso8601, user_api_url
from apps.things.links import thing_api_url, thing_public_url


def user_event_dict(user) -> dict | None:
    if user is None:
        return None
    return {"id": user.pk, "name": user.username, "url": user_api_url(user)}


def thing_event_dict(thing) -> dict:
    """id, name, url, public_url, is_published, is_wip, added, modified, creator {id, name, url}."""
    return {
        "id": thing.pk,
        "name": thing.name,
        "url": thing_api_url(thing.pk),
        "public_url": thing_public_url(thing.pk),
        "is_published": thing.is_published,
        "is_wip": thing.is_wip,
        "added": iso8601(thing.added),
        "modified": iso8601(thing.modified),
        "creator": user_event_dict(thing.creator),
    }


def thing_gone_dict(thing_id: int) -> dict:
    """A deleted (or hidden) Thing: only what identifies it."""
    return {"id": thing_id, "url": thing_api_url(thing_id)}
