"""The webhook event catalog: every event an app can receive, what it means and what its body holds.

One list for the delivery code (which events exist, which are on by default), the developer portal's
event selection (templates/developers/_webhook_events.html) and the docs (docs/webhooks.md lists the
same events; a test keeps the two in step). Pure data: imports nothing of the project.

Every body is `{"event": name, ...}` (ping: only `{"event": "ping"}`). Order events go to the app the
order was placed through; Thing and make events go to every app the Thing's (or make's) owner has
authorized, that has a webhook URL and chose the event (docs/decisions.md: Thing and make webhooks).
"""
from dataclasses import dataclass

ORDERS = "orders"
THINGS = "things"
MAKES = "makes"
GROUPS = ((ORDERS, "Orders"), (THINGS, "Things"), (MAKES, "Makes"))

_THING = {
    "id": 42,
    "name": "Cable clip",
    "url": "https://api.example.com/things/42",
    "public_url": "https://www.example.com/thing:42",
    "is_published": True,
    "is_wip": False,
    "added": "2026-11-25T10:00:00+00:00",
    "modified": "2026-11-25T10:05:00+00:00",
    "creator": {"id": 7, "name": "alice", "url": "https://api.example.com/users/alice"},
}
_USER = {"id": 9, "name": "bob", "url": "https://api.example.com/users/bob"}
_ORDER = {
    "id": "15", "thing_id": "42", "amount": "12.00", "add_date": "2026-11-25 10:00:00",
    "modified_date": "2026-11-25 10:00:00", "charges": [{"name": "Print", "amount": "12.00"}], "fees": "0.65",
    "validated_shipping_address": {}, "is_shipped": "false", "status": "paid", "note": "",
}
_THING_PAYLOAD = "`thing`: the Thing (id, name, url, public_url, is_published, is_wip, added, modified, creator)."


@dataclass(frozen=True)
class EventSpec:
    name: str
    group: str
    description: str
    payload: str  # what the body holds besides `event`
    example: dict
    default: bool = False  # on for an app that never chose its events

    @property
    def example_body(self) -> dict:
        return {"event": self.name, **self.example}


EVENTS: tuple[EventSpec, ...] = (
    EventSpec(
        "order_created", ORDERS, "An order placed through your app was paid.",
        "`order`: the order, as the API shows it.", {"order": _ORDER}, default=True,
    ),
    EventSpec(
        "refund_requested", ORDERS, "The buyer asked for a refund of an order placed through your app.",
        "`order`: the order, as the API shows it.", {"order": {**_ORDER, "status": "refund_requested"}},
        default=True,
    ),
    EventSpec(
        "order_refunded", ORDERS, "An order placed through your app was refunded.",
        "`order`: the order, as the API shows it.", {"order": {**_ORDER, "status": "refunded"}}, default=True,
    ),
    EventSpec(
        "thing_created", THINGS, "A user who authorized your app created a Thing (unpublished at first).",
        _THING_PAYLOAD, {"thing": {**_THING, "is_published": False}},
    ),
    EventSpec(
        "thing_updated", THINGS,
        "One of the user's Things changed (name, description, instructions, license, category, tags, "
        "work-in-progress flag), or a moderator restored it.",
        _THING_PAYLOAD + " `changed`: the names of the fields that changed.",
        {"thing": _THING, "changed": ["name", "tags"]},
    ),
    EventSpec(
        "thing_published", THINGS, "One of the user's Things was published.", _THING_PAYLOAD, {"thing": _THING},
    ),
    EventSpec(
        "thing_deleted", THINGS,
        "One of the user's Things is gone: deleted by its owner, or hidden by a moderator (the API answers "
        "404 for it either way).",
        "`thing`: only `id` and `url` (the Thing cannot be read any more).",
        {"thing": {"id": 42, "url": "https://api.example.com/things/42"}},
    ),
    EventSpec(
        "thing_file_processed", THINGS,
        "A file of one of the user's Things finished processing (STL measured and rendered, or failed).",
        _THING_PAYLOAD + " `file`: id, name, url, status (`live` or `failed`) and error (empty when live).",
        {"thing": _THING, "file": {"id": 301, "name": "clip.stl", "url": "https://api.example.com/files/301",
                                    "status": "live", "error": ""}},
    ),
    EventSpec(
        "thing_commented", THINGS, "Someone commented on one of the user's Things (a reply included).",
        _THING_PAYLOAD + " `comment`: id, body (Markdown), parent_id (null for a top-level comment), "
        "added, and its author as `user`.",
        {"thing": _THING, "comment": {"id": 88, "body": "Printed fine in PETG.", "parent_id": None,
                                       "added": "2026-11-25T11:00:00+00:00", "user": _USER}},
    ),
    EventSpec(
        "thing_liked", THINGS, "Someone liked one of the user's Things (liking what one already likes sends "
        "nothing).",
        _THING_PAYLOAD + " `user`: who liked it.", {"thing": _THING, "user": _USER},
    ),
    EventSpec(
        "make_created", MAKES,
        "A make (a printed copy) was posted: by the user, or by someone else of one of the user's Things.",
        "`make`: id, url, public_url, description, added, thing_id and its maker as `user`.",
        {"make": {"id": 510, "url": "https://api.example.com/copies/510",
                  "public_url": "https://www.example.com/make:510", "description": "", "thing_id": 42,
                  "added": "2026-11-25T12:00:00+00:00", "user": _USER}},
    ),
    EventSpec(
        "make_deleted", MAKES, "A make by the user, or of one of the user's Things, was deleted.",
        "`make`: only `id`, `url` and `thing_id`.",
        {"make": {"id": 510, "url": "https://api.example.com/copies/510", "thing_id": 42}},
    ),
)

BY_NAME = {spec.name: spec for spec in EVENTS}
NAMES = tuple(BY_NAME)
DEFAULT_EVENTS = frozenset(spec.name for spec in EVENTS if spec.default)
# Events about a user's content: delivered to the apps that user authorized (one query per write).
USER_EVENTS = frozenset(spec.name for spec in EVENTS if spec.group in (THINGS, MAKES))


def event_groups() -> list[tuple[str, list[EventSpec]]]:
    """(group title, its events) in catalog order, for the selection form and the docs."""
    return [(title, [spec for spec in EVENTS if spec.group == key]) for key, title in GROUPS]
