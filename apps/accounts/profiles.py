"""The tabs of a public profile (/@<name>): Things, makes, collections, likes.

What a user designed, made, collected and liked belongs to apps above `accounts` (things, makes,
collections), so `accounts` never imports them: each registers its tab here from its AppConfig.ready(),
and the profile page paginates what the tab's `listing(owner=, viewer=)` returns (a queryset of what
`viewer` may see, through that app's selectors) and renders it with the tab's template. `prepare(items,
viewer=)` may complete a page of rows (collections attach their thumbnails) without a query per row.

`counted_as`: the field of the API's user object (a wire version's, apps.core.pipeline.wire) that counts
the same listing (`profile_count`). A count and the list it counts are then one queryset, for the profile
page and for the API's list of the same rows alike: a client never reads a count its list contradicts.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection


@dataclass(frozen=True)
class ProfileTab:
    slug: str  # the URL segment after /@<name>/; the first tab is also /@<name> itself
    label: str
    template: str
    listing: Callable
    order: int = 100
    prepare: Callable | None = None
    empty: str = "Nothing here yet."
    counted_as: str | None = None


_TABS: dict[str, ProfileTab] = {}


def profile_tab_register(tab: ProfileTab) -> None:
    _TABS[tab.slug] = tab


def profile_tabs() -> list[ProfileTab]:
    return sorted(_TABS.values(), key=lambda tab: (tab.order, tab.slug))


def profile_counts(*, owner, viewer) -> dict[str, int]:
    """How many rows `viewer` may see in each tab of `owner`'s profile, by slug: every tab's listing
    counted in one statement (`SELECT (SELECT COUNT(*) FROM (<listing>)), …`), the same querysets the
    tabs and the API's lists page through."""
    tabs = profile_tabs()
    if not tabs:
        return {}
    parts, params = [], []
    for index, tab in enumerate(tabs):
        sql, values = tab.listing(owner=owner, viewer=viewer).order_by().values("pk").query.sql_with_params()
        parts.append(f"(SELECT COUNT(*) FROM ({sql}) AS tab{index})")
        params.extend(values)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(parts), params)
        row = cursor.fetchone()
    return {tab.slug: int(count) for tab, count in zip(tabs, row)}


def profile_count(field: str, counts: dict[str, int]) -> int:
    """The count of the tab counted as `field` (ProfileTab.counted_as) in `profile_counts`' answer; 0 when
    no installed app registered one."""
    return next((counts[tab.slug] for tab in _TABS.values() if tab.counted_as == field and tab.slug in counts), 0)


# --- what a user's API object shows of the apps above (a wire version's fields) ----------------------------
# An app above `accounts` registers, from its AppConfig.ready(), a function answering one field of the user
# object for a caller: `fact(owner=, viewer=)`, through that app's own selectors (its visibility rules).

_FACTS: dict[str, Callable] = {}


def profile_fact_register(field: str, fact: Callable) -> None:
    _FACTS[field] = fact


def profile_fact(field: str, *, owner, viewer, default=None):
    """The registered answer of `field` for `owner` as `viewer` may see it; `default` when no installed app
    registered one."""
    fact = _FACTS.get(field)
    return fact(owner=owner, viewer=viewer) if fact is not None else default
