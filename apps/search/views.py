"""Search endpoints (spec §4.1 user search, §4.7): parse → selector → paginate → serialise.

spec §7 "Search matches nothing → 404" holds for every one of them, autocomplete included.
"""
from functools import cache

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from apps.core.pipeline import versions, wire
from apps.core.pipeline.views import ApiView

from apps.accounts.selectors import user_get_by_name
from apps.core.domain.exceptions import NotFound, ValidationFailed
from apps.core.pipeline.api import paginated_response, validated
from apps.core.pipeline.schema import error
from apps.core.domain.moderation import viewer_sees_hidden
from apps.core.pipeline.pagination import link_header
from apps.core.pipeline.renderers import Rendered
from apps.search import keptpages, registry, selectors
from apps.search.serializers import (
    AutocompleteItemSerializer,
    AutocompleteQueryInput,
    LibraryThingSerializer,
    SearchAnswer,
    SearchQueryInput,
    SearchTypeField,
    ThingSearchQueryInput,
)
from apps.things.serializers import ThingShortSerializer

TERM_MAX_LENGTH = 200
SHAPE = " Naming `type` (here only `things`) answers `{total, hits}` instead of the array, same paging."
NOTHING_MATCHES = error("Nothing matches (spec §7).")
# One item shape per registered `type` (apps register theirs at startup, so the list is read lazily).
SEARCH_RESULTS = SearchAnswer(
    PolymorphicProxySerializer(
        component_name="SearchResult",
        serializers=lambda: [search_type.serializer_class for search_type in registry.SEARCH_TYPES.values()],
        resource_type_field_name=None,
    ),
    "SearchAnswer",
)
THING_RESULTS = SearchAnswer(ThingShortSerializer, "ThingSearchAnswer")
LIBRARY_RESULTS = SearchAnswer(LibraryThingSerializer, "LibrarySearchAnswer")


def _parse_query(serializer_class, request) -> dict:
    """Query parameters through an input serializer; an empty value counts as absent, and so does
    whitespace alone in a free-text filter (`category`, `material`: any string is valid there, and nothing
    is left of it once trimmed). Anywhere else whitespace is a value the serializer refuses (400): a name
    from a list (`license`, `sort`, `type`), a boolean, a number or a date, as the document writes them."""
    free_text = _free_text_fields(serializer_class)
    data = {
        key: value for key, value in request.query_params.items()
        if value != "" and not (key in free_text and value.strip() == "")
    }
    return validated(serializer_class(data=data))


@cache
def _free_text_fields(serializer_class) -> frozenset[str]:
    return frozenset(
        name for name, field in serializer_class().fields.items()
        if isinstance(field, serializers.CharField) and not isinstance(field, SearchTypeField)
    )


def _search_response(request, queryset, serializer_class, *, page_prepare=None, page_info=None) -> Response:
    """A page of results, 404 when nothing matches (spec §7). The spec's bare array, or the modern
    `{"total", "hits"}` when the request names a `type` (docs/decisions.md: Search shape): modern clients
    send `type` and read that object, older ones never send it."""
    context = {"viewer": request.user, "application": getattr(request.auth, "application", None)}
    # The `thingiverse` wire (apps.core.pipeline.wire "Search"): always `{total, hits}`, and no match is an empty one.
    live = wire.has(versions.of(request), "Search")
    return paginated_response(
        request, queryset, serializer_class, context=context, not_found_when_empty=not live,
        total_and_hits=live or _names_type(request), page_prepare=page_prepare, page_info=page_info,
    )


def _pin_thing_id_term(request, queryset, term) -> None:
    """The `thingiverse` wire's id search: a term naming a Thing (its id, its page URL) puts it first."""
    if wire.has(versions.of(request), "Search") and hasattr(queryset, "pin_first"):
        queryset.pin_first(selectors.search_term_thing_id(term))


def _names_type(request) -> bool:
    # An empty value counts as absent, as everywhere in the query (_parse_query).
    return request.query_params.get("type", "").strip() != ""


def _term(raw: str | None) -> str:
    term = selectors.search_term_clean(raw)
    if len(term) > TERM_MAX_LENGTH:
        message = f"Use at most {TERM_MAX_LENGTH} characters."
        raise ValidationFailed(f"term: {message}", errors={"term": [message]})
    return term


class SearchView(ApiView):
    """/search/{term}/: Things (default), users, collections or makes (copies), by relevance."""

    @extend_schema(
        parameters=[SearchQueryInput],
        responses={200: SEARCH_RESULTS, 404: NOTHING_MATCHES},
        summary="Search",
        description="Published Things ranked by relevance (name > tags > description), or with `type` "
        "users, collections or makes (copies). Without a term: everything of that type, newest first. "
        "Without `type` the answer is the spec's array; a request naming `type` gets `{total, hits}` "
        "(same paging, Link header too). 404 when nothing matches.",
    )
    def get(self, request, term=None):
        data = _parse_query(SearchQueryInput, request)
        search_type = registry.search_type_get(data.get("type"))
        registry.search_type_check_params(search_type, data)
        params = selectors.SearchParams.from_data(data)
        keep = None
        if not viewer_sees_hidden(request.user) and versions.of(request) == versions.SPEC:
            keep = keptpages.search_page_keys(request, term)  # staff see hidden Things: never kept
        generation = None
        if keep:
            # The kept page, read with the token's row (ApiView.cache_keys), while it still stands; the
            # generation is read before the window, so a page built now is kept under the one it saw.
            generation, entry = self.cached_values(keep)
            found = keptpages.search_page_cached([generation, entry])
            if found is not None:
                body, number, num_pages = found
                kept = Rendered(body, {"Link": link_header(request, number, num_pages)}, from_cache=True)
                return Response(kept, headers=kept.headers)
        queryset = search_type.search(term=_term(term), viewer=request.user, params=params)
        if search_type.serializer_class is ThingShortSerializer:
            _pin_thing_id_term(request, queryset, term)
        if search_type.serializer_class is ThingShortSerializer and hasattr(queryset, "cached_shorts_enable"):
            # The page from cached short forms (apps.things.bodycache), of the request's wire version.
            queryset.cached_shorts_enable(versions.of(request))
        prepare = search_type.page_prepare
        page_info: dict = {}
        response = _search_response(
            request, queryset, search_type.serializer_class,
            page_prepare=(lambda rows: prepare(rows, viewer=request.user)) if prepare else None,
            page_info=page_info,
        )
        if keep and generation is not None:
            keptpages.search_page_keep(keep[1], generation, queryset, response.data, page_info)
        return response

    def cache_keys(self, request, term=None, **kwargs):
        return keptpages.search_page_keys(request, term)


class SearchLibraryView(ApiView):
    """/search/{term}/library: the caller's own Things, published or not."""

    @extend_schema(
        parameters=[ThingSearchQueryInput],
        responses={200: LIBRARY_RESULTS, 404: NOTHING_MATCHES},
        summary="Search your library",
        description="Your own Things (drafts included) matching the term, each with `type: \"thing\"`; "
        "all of them without a term. 404 when nothing matches." + SHAPE,
    )
    def get(self, request, term=None):
        params = _thing_params(request)
        queryset = selectors.thing_search_library(term=_term(term), viewer=request.user, params=params)
        return _search_response(request, queryset, LibraryThingSerializer)


class SearchTagView(ApiView):
    """/search/{tag}/tag: published Things carrying the tag."""

    @extend_schema(
        parameters=[ThingSearchQueryInput],
        responses={200: THING_RESULTS, 404: NOTHING_MATCHES},
        summary="Search by tag",
        description="Published Things carrying the tag (normalised as spec §2, any case), newest first. "
        "404 when none." + SHAPE,
    )
    def get(self, request, tag=None):
        params = _thing_params(request)
        queryset = selectors.thing_search_by_tag(tag=_term(tag), viewer=request.user, params=params)
        return _search_response(request, queryset, ThingShortSerializer)


class SearchAutocompleteView(ApiView):
    """/search/{term}/autocomplete: tag and Thing names starting with the term."""

    pagination_class = None  # one short array, sized by its own `per_page` (OpenAPI: no `page`)

    @extend_schema(
        parameters=[AutocompleteQueryInput],
        responses={200: AutocompleteItemSerializer(many=True), 404: NOTHING_MATCHES},
        summary="Autocomplete",
        description="Up to `per_page` (10 by default, at most 20) tags, then published Things, whose name "
        "starts with the term. 400 without a term, 404 when nothing matches.",
    )
    def get(self, request, term=None):
        term = _term(term)
        if not term:
            message = "A term is required."
            raise ValidationFailed(f"term: {message}", errors={"term": [message]})
        per_page = _parse_query(AutocompleteQueryInput, request)["per_page"]
        limit = max(1, min(per_page, selectors.AUTOCOMPLETE_MAX))
        items = selectors.search_autocomplete(term=term, viewer=request.user, limit=limit)
        if not items:
            raise NotFound()
        return Response(items)


class UserSearchView(ApiView):
    """/users/{username}/search/{term}: that user's Things (their own drafts only for themselves)."""

    @extend_schema(
        parameters=[ThingSearchQueryInput],
        responses={200: THING_RESULTS, 404: error("No such user, or nothing matches.")},
        summary="Search a user's Things",
        description="The user's published Things matching the term (your own list includes drafts); all "
        "of them without a term. 404 for an unknown user and when nothing matches." + SHAPE,
    )
    def get(self, request, username, term=None):
        owner = user_get_by_name(username, viewer=request.user)  # 404 before any 400, as elsewhere
        params = _thing_params(request)
        queryset = selectors.thing_search_for_user(
            owner=owner, term=_term(term), viewer=request.user, params=params
        )
        _pin_thing_id_term(request, queryset, term)
        return _search_response(request, queryset, ThingShortSerializer)


def _thing_params(request) -> selectors.SearchParams:
    """Filters and sorts of the Things-only endpoints: `type` other than things is refused."""
    data = _parse_query(SearchQueryInput, request)
    if data.get("type", registry.DEFAULT_TYPE) != registry.DEFAULT_TYPE:
        message = "Only things can be searched here."
        raise ValidationFailed(f"type: {message}", errors={"type": [message]})
    registry.search_type_check_params(registry.search_type_get(registry.DEFAULT_TYPE), data)
    return selectors.SearchParams.from_data(data)
