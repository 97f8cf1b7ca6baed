"""Sections one app adds to another app's site page (a NetBox-style registry: the arrow points down).

The Thing page shows what several apps own: files and images (uploads), makes, comments, collections,
Thing apps; a make's page and a group topic's page show their comments. Those apps sit above the app
that owns the page, which never imports them: each registers its sections here from its
AppConfig.ready() (as upload finalizers and event targets are registered), and the page renders what
is registered for it.

A section's `context(request=, target=, shared=)` reads through its own app's selectors and returns the
context of its template, or None to show nothing. `shared` is one dict per page view, so sections of
the same app load their rows once (the gallery and the file list share one files-and-images read).
"""

from collections.abc import Callable
from dataclasses import dataclass

# The pages that take sections, and where a section may go on each.
PAGES = {
    "thing": ("gallery", "actions", "main", "aside"),
    "thing-edit": ("edit",),
    "make": ("main",),
    "group-topic": ("main",),
}


@dataclass(frozen=True)
class PageSection:
    page: str
    name: str
    slot: str
    template: str
    context: Callable[..., dict | None]
    order: int = 100


_SECTIONS: dict[tuple[str, str], PageSection] = {}


def page_section_register(section: PageSection) -> None:
    if section.slot not in PAGES.get(section.page, ()):
        raise ValueError(f"no slot {section.slot!r} on the {section.page!r} page")
    _SECTIONS[(section.page, section.name)] = section


def page_sections(page: str, *, request, target) -> dict[str, list[dict]]:
    """{slot: [{"name", "template", "context"}]} of the sections registered for `page`, in order."""
    shared: dict = {}
    rendered: dict[str, list[dict]] = {slot: [] for slot in PAGES[page]}
    for section in sorted(_SECTIONS.values(), key=lambda s: (s.order, s.name)):
        if section.page != page:
            continue
        context = section.context(request=request, target=target, shared=shared)
        if context is not None:
            rendered[section.slot].append(
                {"name": section.name, "template": section.template, "context": context}
            )
    return rendered
