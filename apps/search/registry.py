"""Which `type` values GET /search/{term}/ answers (spec §4.7: Things, Makes, Users or Collections).

A feature app plugs its kind of item in from its AppConfig.ready():

    search_type_register(SearchType(name="collections", search=collection_search,
                                    serializer_class=CollectionSerializer))

`search(term=, viewer=, params=)` returns an ordered queryset of what the viewer may see; the view
paginates it, answers 404 when it is empty, and serialises it with `serializer_class` (context:
`request`, `viewer`, and `application`, the token's app).

The site's search page (/find) offers every registered type under its `label`, rendering a page of
results with `page_template` (after `page_prepare`, as the API does).
"""
from collections.abc import Callable
from dataclasses import dataclass, field

from apps.accounts.serializers import UserSerializer
from apps.core.domain.exceptions import ValidationFailed
from apps.search import selectors
from apps.things.serializers import ThingShortSerializer

DEFAULT_TYPE = "things"


@dataclass(frozen=True)
class SearchType:
    name: str
    search: Callable
    serializer_class: type
    sorts: tuple[str, ...] = (selectors.SORT_RELEVANT, selectors.SORT_NEWEST)
    filters: frozenset[str] = field(default_factory=frozenset)
    # Called with the page's rows and the viewer before serialising, for what a row's query cannot
    # carry (a collection's thumbnail Thing); returns the rows to serialise.
    page_prepare: Callable | None = None
    # The site's search page: the tab's name and the template of a page of results.
    label: str = ""
    page_template: str = ""


SEARCH_TYPES: dict[str, SearchType] = {}


def search_type_register(search_type: SearchType) -> None:
    SEARCH_TYPES[search_type.name] = search_type


def search_type_get(name: str | None) -> SearchType:
    """The registered type (`things` when none is given); 400 naming the supported ones otherwise."""
    search_type = SEARCH_TYPES.get(name or DEFAULT_TYPE)
    if search_type is None:
        message = f"type must be one of: {', '.join(SEARCH_TYPES)}."
        raise ValidationFailed(f"type: {message}", errors={"type": [message]})
    return search_type


def search_type_check_params(search_type: SearchType, data: dict) -> None:
    """A sort or filter the type cannot apply is refused (400), never silently ignored."""
    errors = {}
    sort = data.get("sort")
    if sort is not None and sort not in search_type.sorts:
        sorts = ", ".join(search_type.sorts)
        errors["sort"] = [f"For type {search_type.name}, sort must be one of: {sorts}."]
    for name in sorted(selectors.THING_FILTERS - search_type.filters):
        if name in data:
            errors[name] = [f"Not available for type {search_type.name}."]
    if errors:
        name, messages = next(iter(errors.items()))
        raise ValidationFailed(f"{name}: {messages[0]}", errors=errors)


search_type_register(
    SearchType(
        name="things",
        search=selectors.thing_search,
        serializer_class=ThingShortSerializer,
        sorts=selectors.THING_SORTS,
        filters=selectors.THING_FILTERS,
        label="Things",
        page_template="search/_things.html",
    )
)
search_type_register(
    SearchType(
        name="users",
        search=selectors.user_search,
        serializer_class=UserSerializer,
        sorts=selectors.USER_SORTS,
        label="Makers",
        page_template="search/_users.html",
    )
)
