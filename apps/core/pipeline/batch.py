"""Values an answer reads once for all its objects, however many sources built them (docs/decisions.md:
"A list item's tags").

A serializer that needs a value per object which is not a column of the object's own statement (the tag
objects of every short Thing, under the `thingiverse` wire version) must not read it object by object: a
page of 100 would cost 100 statements (tests/wire/test_every_answer.py). Short Things are built by many
sources, though (lists, search, collections, copies, a Thing's ancestors), some of them one object at a
time, so no one of them knows the whole answer's objects.

So such a serializer puts an empty list in its output, `later(loader, key)`, and carries on. Before the
answer becomes bytes (apps.core.pipeline.renderers), or before built objects are kept in the cache,
`settle()` calls each loader once with every key asked for since the last settle, and fills each list in
place. However many objects, one call (one statement) per loader.

The lists are filled in place, so whatever holds them (a dict of a page, a kept short form) sees the
values. A list that nobody settles stays empty; `settle` is called by the renderer, so every API answer
settles, and by whatever keeps built output in the cache before it keeps it.

The pending lists live in a context variable, one registry per thread (a request at a time); `settle`
empties it, and `discard` (the start of every request) drops what a failed answer left behind.
"""
from collections.abc import Callable, Hashable, Iterable
from contextvars import ContextVar

# loader(keys) -> {key: values}; a key the loader does not answer leaves its lists empty.
Loader = Callable[[list], dict]

_PENDING: ContextVar[dict[Loader, list[tuple[Hashable, list]]] | None] = ContextVar("batch_pending", default=None)


def later(loader: Loader, key: Hashable) -> list:
    """An empty list, filled with `loader([... key ...])[key]` at the next `settle()`."""
    pending = _PENDING.get()
    if pending is None:
        pending = {}
        _PENDING.set(pending)
    values: list = []
    pending.setdefault(loader, []).append((key, values))
    return values


def settle() -> None:
    """Fill every pending list: each loader called once, with its distinct keys in the order asked."""
    pending = _PENDING.get()
    while pending:  # a loader's values may ask for more (a value built by a serializer that batches too)
        _PENDING.set({})
        for loader, waiting in pending.items():
            found = loader(list(dict.fromkeys(key for key, _ in waiting)))
            for key, values in waiting:
                values.extend(found.get(key, ()))
        pending = _PENDING.get()
    _PENDING.set(None)


def discard() -> None:
    """Forget the pending lists (a request starts: whatever an earlier, failed answer left is not read)."""
    _PENDING.set(None)


def waiting() -> Iterable[Hashable]:
    """The keys not yet settled (tests)."""
    return [key for entries in (_PENDING.get() or {}).values() for key, _ in entries]
