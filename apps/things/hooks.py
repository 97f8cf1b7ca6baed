"""What the apps built on Things plug into them (NetBox-style registries).

Things sit below search, uploads and the Thing apps host, and import none of them: each registers what it
adds from its AppConfig.ready(), and things calls whatever is registered.

- Indexers (apps.search): keep Thing.search_vector in step with the text it is built from.
- Images (apps.uploads): a Thing's default image and thumbnail, read in the Thing's own query.
- Page sections (apps.uploads, apps.thingapps): what the Thing's site page shows beyond the Thing.
"""
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# --- indexers ----------------------------------------------------------------------------------------

_INDEXERS: dict[str, Callable[..., None]] = {}


def thing_indexer_register(name: str, indexer: Callable[..., None]) -> None:
    """`indexer(thing_ids=[…])` re-reads those Things' indexed text (name, description, tags)."""
    _INDEXERS[name] = indexer


def thing_reindex(*, thing_ids: Iterable[int]) -> None:
    """Tell every indexer these Things' indexed text changed (in the caller's transaction)."""
    ids = list(thing_ids)
    for indexer in _INDEXERS.values():
        indexer(thing_ids=ids)


# --- images ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThingImages:
    """How a Thing's pictures are read: `annotations()` are correlated subqueries added to every Thing
    queryset (so a page of Things costs no query per row); the two functions read those annotations,
    never the database, and answer None when the Thing has no picture."""

    annotations: Callable[[], dict]
    thumbnail_url: Callable[..., str | None]
    default_image: Callable[..., dict | None]


_IMAGES: list[ThingImages] = []


def thing_images_register(images: ThingImages) -> None:
    _IMAGES[:] = [images]


def thing_images() -> ThingImages | None:
    return _IMAGES[0] if _IMAGES else None


# --- the Thing page ----------------------------------------------------------------------------------

_PAGE_SECTIONS: dict[str, Callable[..., object]] = {}


def thing_page_section_register(name: str, section: Callable[..., object]) -> None:
    """`section(request=, thing=)` answers the template variable `name` of things/thing_detail.html."""
    _PAGE_SECTIONS[name] = section


def thing_page_sections(*, request, thing) -> dict[str, object]:
    return {name: section(request=request, thing=thing) for name, section in _PAGE_SECTIONS.items()}
