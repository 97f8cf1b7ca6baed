"""What the apps built on Things plug into them (NetBox-style registries).

Things sit below search and uploads and import neither: each registers what it adds from its
AppConfig.ready(), and things calls whatever is registered. (What other apps add to the Thing's site page
is registered with apps.core.site.sections.)

- The index (apps.search): keeps its copy of Things (the search vector and the search table's rows) in
  step with every write to them, counters included.
- Images (apps.uploads): a Thing's default image and thumbnail, read in the Thing's own query through
  its pointers to them (which apps.uploads keeps).
"""
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db.models import QuerySet

# --- the index ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThingIndex:
    """A copy of Things' data kept in step with their writes (apps.search: the vector and search rows).

    Each callable takes `thing_ids=[…]` and runs in the caller's transaction: `index` after a Thing was
    created or its indexed text (name, description, tags) changed, `sync` after its visibility or a
    column the copy filters by changed, `forget` after it was deleted. `counters_update(things, **values)`
    performs a counter UPDATE of the Things queryset itself, with the copy of `counters` following in the
    same statement; it returns how many Things it updated."""

    index: Callable[..., None]
    sync: Callable[..., None]
    forget: Callable[..., None]
    counters_update: Callable[..., int]
    counters: frozenset[str] = field(default_factory=frozenset)


_INDEX: list[ThingIndex] = []


def thing_index_register(index: ThingIndex) -> None:
    _INDEX[:] = [index]


def thing_reindex(*, thing_ids: Iterable[int]) -> None:
    """These Things were created or their indexed text changed."""
    thing_ids = list(thing_ids)
    for index in _INDEX:
        index.index(thing_ids=list(thing_ids))


def thing_index_sync(*, thing_ids: Iterable[int]) -> None:
    """These Things' visibility or filter columns changed (publish, hide, license, category …)."""
    thing_ids = list(thing_ids)
    for index in _INDEX:
        index.sync(thing_ids=list(thing_ids))


def thing_index_forget(*, thing_ids: Iterable[int]) -> None:
    """These Things were deleted."""
    thing_ids = list(thing_ids)
    for index in _INDEX:
        index.forget(thing_ids=list(thing_ids))


def thing_counters_write(things: QuerySet, **values) -> int:
    """`things.update(**values)` for counters (apps.things.counters): written by the index when it keeps
    a copy of one of them, so the copy follows in the same statement."""
    for index in _INDEX:
        if index.counters.intersection(values):
            return index.counters_update(things, **values)
    return things.update(**values)


# --- images ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThingImages:
    """How a Thing's pictures are read. Columns of the Thing point at them, `default_image` and
    `file_thumbnail_key` (kept by the services of their source, in the transactions that change them);
    every Thing queryset joins the `related` rows and loads only `fields` (`only()` paths, the Thing's
    own columns among them), or leaves out `deferred` (a queryset that loads every column of the Thing),
    so a page of Things costs no query per row. The three functions read what the query loaded, never
    the database, and answer None when the Thing has no picture (or was loaded without the join)."""

    related: tuple[str, ...]
    fields: tuple[str, ...]
    deferred: tuple[str, ...]
    thumbnail_url: Callable[..., str | None]
    default_image: Callable[..., dict | None]
    preview_url: Callable[..., str | None]  # a larger picture than the thumbnail


_IMAGES: list[ThingImages] = []


def thing_images_register(images: ThingImages) -> None:
    _IMAGES[:] = [images]


def thing_images() -> ThingImages | None:
    return _IMAGES[0] if _IMAGES else None
