"""Webhook events about Things (apps/webhooks/catalog.py), for the apps a Thing's creator authorized.

Things' own services call these, and so do the apps built on Things for the events they cause (a file
processed: apps.uploads; a comment: apps.comments). Each runs in the caller's transaction, so the outbox
row commits with the change; with no app subscribed it costs one query (webhooks.selectors).
"""
from apps.things.models import Thing
from apps.things.wire import thing_event_dict, thing_gone_dict
from apps.webhooks import services as webhook_services


def thing_event(thing: Thing, event: str, **extra) -> None:
    """Record a Thing webhook event (apps/webhooks/catalog.py) for the apps its creator authorized, in the
    caller's transaction. A hidden Thing emits nothing (to apps it is gone: thing_deleted was sent when it
    was hidden). `extra` values may be callables, built only when an app is subscribed."""
    if thing.is_hidden:
        return

    def payload() -> dict:
        body = {"thing": thing_event_dict(thing)}
        body.update({key: value() if callable(value) else value for key, value in extra.items()})
        return body

    webhook_services.webhook_user_event_record(user_ids=[thing.creator_id], event=event, payload=payload)


def thing_gone_event(*, thing_id: int, creator_id: int) -> None:
    """thing_deleted: the Thing was deleted, or hidden by a moderator (the API answers 404 either way)."""
    webhook_services.webhook_user_event_record(
        user_ids=[creator_id], event="thing_deleted", payload=lambda: {"thing": thing_gone_dict(thing_id)}
    )
