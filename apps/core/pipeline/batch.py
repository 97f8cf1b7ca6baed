"""Values an answer reads once for all its objects, however many sources built them (docs/decisions.md:
"A list item's tags").

A serializer that needs a value per object which is not a column of the object's own statement (the tag
objects of every short Thing, under the `thingiverse` wire version) must not read it object by object: a
page of 100 would cost 100 statements (tests/wire/test_every_answer.py). Short Things are built by many
sources, though (lists, search, collections, copies, a Thing's ancestors), some of them one object at a
time, so no one of them knows the whole answer's objects.

So such a serializer puts a placeholder in its output and carries on: an empty list, `later(loader, key)`,
or for any other value a wire method's `Later(loader, key, default)`, which wire's `Provide` puts in the
object as a `Slot` (`fill`), which the renderer writes as the value it holds. Before the answer becomes bytes (apps.core.pipeline.renderers), or before built objects
are kept in the cache, `settle()` calls each loader once with every key asked for since the last settle,
and puts each value in place. However many objects, one call (one statement) per loader.

Values are put in place (a list extended, a slot filled), so whatever holds them (a page's dict, a kept
short form) sees them. A value nobody settles keeps its placeholder; `settle` is called by the renderer,
so every API answer settles, and by whatever keeps built output in the cache before it keeps it.

The pending values live in a context variable, one registry per thread (a request at a time); `settle`
empties it, and `discard` (the API's error handler) drops what a failed answer asked for.
"""
from collections.abc import Callable, Hashable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass

# loader(keys) -> {key: value}; a key the loader does not answer leaves the default.
Loader = Callable[[list], dict]
_Setter = Callable[[dict], None]

_PENDING: ContextVar[dict[Loader, list[tuple[Hashable, _Setter]]] | None] = ContextVar("batch_pending", default=None)


@dataclass(frozen=True)
class Later:
    """What a serializer's wire method answers for a value read at `settle()` (apps.core.pipeline.wire:
    Provide puts it in the output with `fill`): `loader([... key ...]).get(key, default)`."""

    loader: Loader
    key: Hashable
    default: object = None


def _register(loader: Loader, key: Hashable, setter: _Setter) -> None:
    pending = _PENDING.get()
    if pending is None:
        pending = {}
        _PENDING.set(pending)
    pending.setdefault(loader, []).append((key, setter))


def later(loader: Loader, key: Hashable) -> list:
    """An empty list, extended with `loader([... key ...])[key]` (a list) at the next `settle()`."""
    values: list = []
    _register(loader, key, lambda found: values.extend(found.get(key, ())))
    return values


class Slot:
    """A value filled at `settle()`, written as that value by the renderer (apps.core.pipeline.renderers:
    the encoder's `default`). It is the object itself that is filled, not the key of a dict holding it: a
    serializer's `.data` is a copy of the dict its fields were put in (DRF's ReturnDict), and any copy
    holds the same slot."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Slot({self.value!r})"


def fill(data: dict, name: str, value: Later) -> None:
    """`data[name]` is a Slot holding `value.default` until the next `settle()`, then what the loader read
    for its key."""
    slot = Slot(value.default)
    data[name] = slot

    def put(found: dict) -> None:
        slot.value = found[value.key] if value.key in found else value.default

    _register(value.loader, value.key, put)


def settle() -> None:
    """Fill every pending value: each loader called once, with its distinct keys in the order asked."""
    pending = _PENDING.get()
    while pending:  # a loader's values may ask for more (a value built by a serializer that batches too)
        _PENDING.set({})
        for loader, waiting in pending.items():
            found = loader(list(dict.fromkeys(key for key, _ in waiting)))
            for _, setter in waiting:
                setter(found)
        pending = _PENDING.get()
    _PENDING.set(None)


def discard() -> None:
    """Forget the pending values (an answer failed: what it asked for is not read)."""
    _PENDING.set(None)


def waiting() -> Iterable[Hashable]:
    """The keys not yet settled (tests)."""
    return [key for entries in (_PENDING.get() or {}).values() for key, _ in entries]
