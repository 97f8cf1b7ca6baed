"""The tabs of a public profile (/@<name>): Things, makes, collections, likes.

What a user designed, made, collected and liked belongs to apps above `accounts` (things, makes,
collections), so `accounts` never imports them: each registers its tab here from its AppConfig.ready(),
and the profile page paginates what the tab's `listing(owner=, viewer=)` returns (a queryset of what
`viewer` may see, through that app's selectors) and renders it with the tab's template. `prepare(items,
viewer=)` may complete a page of rows (collections attach their thumbnails) without a query per row.
"""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ProfileTab:
    slug: str  # the URL segment after /@<name>/; the first tab is also /@<name> itself
    label: str
    template: str
    listing: Callable
    order: int = 100
    prepare: Callable | None = None
    empty: str = "Nothing here yet."


_TABS: dict[str, ProfileTab] = {}


def profile_tab_register(tab: ProfileTab) -> None:
    _TABS[tab.slug] = tab


def profile_tabs() -> list[ProfileTab]:
    return sorted(_TABS.values(), key=lambda tab: (tab.order, tab.slug))
