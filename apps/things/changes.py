"""The one change event of a Thing's shown state (issue 24): what a cached answer shows changed.

A service that changes a row a Thing's answers show, other than the Thing's own row, emits
`thing_changed` in its transaction: a Thing's images or files (apps.uploads), its creator's name or
avatar, a category's or a tag's name (apps.things.signals, on the services' saves). The Thing's own row
needs no event: the database moves its version on every UPDATE (migration things.0010), whoever sends it.

The cache listens (apps.things.bodycache moves the versions of the Things concerned, in the same
transaction: every cached body, short form and kept page of them is stale once it commits, and an event
cannot be lost while Redis is unreachable). Nothing else calls the cache's invalidation: a test
(apps/things/tests/readpath/test_thing_writes_lint.py) keeps it so, and keeps the writes to the tables
these answers show in the services.
"""
from django.dispatch import Signal

# kwargs: thing_ids (ids of Things) or filters (a Thing queryset's filter: creator_id=…, category_id=…)
thing_changed = Signal()


def thing_changed_emit(*, thing_ids=None, **filters) -> None:
    """Say that what these Things' answers show changed (`thing_ids`, or every Thing matching `filters`)."""
    if thing_ids is not None:
        ids = sorted({int(i) for i in thing_ids if i is not None})
        if not ids:
            return
        thing_changed.send(sender=None, thing_ids=ids, filters=None)
    else:
        thing_changed.send(sender=None, thing_ids=None, filters=filters)
