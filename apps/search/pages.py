"""The site's search page, /find: Things, makers, collections or makes, with the category, license and
sort filters and paging. The same registry and selectors as GET /search/{term}/ (spec §4.7), so the
visibility rules and the result window are the API's (apps register their types: apps.search.registry).
"""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.core.domain.exceptions import ValidationFailed
from apps.core.domain.licenses import THING_LICENSE_CHOICES
from apps.core.site.pages import paginate
from apps.search import registry, selectors
from apps.search.serializers import SearchQueryInput
from apps.things.selectors import category_slug_choices

TERM_MAX_LENGTH = 200
FILTERS = ("sort", "license", "category", "material")
# Suggestions of the material filter (any text is accepted: it matches print_settings.material, any case).
MATERIALS = ("PLA", "PETG", "ABS", "ASA", "TPU", "PA", "PC", "Resin")
SORT_LABELS = {
    selectors.SORT_RELEVANT: "Best match",
    selectors.SORT_NEWEST: "Newest",
    selectors.SORT_POPULAR: "Popular",
    selectors.SORT_LIKES: "Most liked",
}


def _params(search_type, query) -> tuple[selectors.SearchParams, str]:
    """The validated filters of the query string, or the defaults and the reason they were refused."""
    data = {name: query[name] for name in FILTERS if query.get(name, "").strip()}
    serializer = SearchQueryInput(data=data)
    try:
        if not serializer.is_valid():
            field, messages = next(iter(serializer.errors.items()))
            raise ValidationFailed(f"{field}: {messages[0]}")
        registry.search_type_check_params(search_type, serializer.validated_data)
    except ValidationFailed as exc:
        return selectors.SearchParams(), exc.message
    return selectors.SearchParams.from_data(serializer.validated_data), ""


def find(request):
    """/find?q=&type=&category=&license=&material=&sort=&page="""
    query = request.GET
    term = selectors.search_term_clean(query.get("q", ""))[:TERM_MAX_LENGTH]
    types = registry.SEARCH_TYPES
    search_type = types.get(query.get("type") or registry.DEFAULT_TYPE) or types[registry.DEFAULT_TYPE]
    params, problem = _params(search_type, query)
    try:
        results = search_type.search(term=term, viewer=request.user, params=params)
    except ValidationFailed as exc:
        # A filter only the search itself can judge (a category it finds no such slug for: the API's 400):
        # said on the page, and the search runs without the filters, as for a value _params refused.
        params, problem = selectors.SearchParams(), exc.message
        results = search_type.search(term=term, viewer=request.user, params=params)
    page = paginate(request, results)
    items = list(page)
    # Nothing found for a term with a typo: show what its closest spelling finds, and say so.
    corrected = ""
    if term and page.paginator.count == 0 and search_type.name == registry.DEFAULT_TYPE:
        corrected = selectors.search_suggestion(term=term, viewer=request.user)
        if corrected:
            page = paginate(request, search_type.search(term=corrected, viewer=request.user, params=params))
            items = list(page)
            if not items:
                corrected = ""
    if search_type.page_prepare is not None:
        items = search_type.page_prepare(items, viewer=request.user)
    is_things = search_type.name == registry.DEFAULT_TYPE
    context = {
        "q": term,
        "corrected": corrected,
        "type": search_type,
        "types": list(types.values()),
        "page": page,
        "items": items,
        "problem": problem,
        "sorts": [(name, SORT_LABELS.get(name, name)) for name in search_type.sorts],
        "sort": params.sort if params.sort in search_type.sorts else search_type.sorts[0],
        "license": params.license or "",
        "category": params.category or "",
        "material": params.material or "",
        "materials": MATERIALS if is_things else [],
        "licenses": THING_LICENSE_CHOICES if is_things else [],
        "categories": category_slug_choices() if is_things else [],
    }
    return render(request, "search/find.html", context)


SUGGEST_LIMIT = 8


@require_GET
def find_suggest(request):
    """/find/suggest?q=: the search box's autocomplete (tag and Thing names starting with the words typed,
    the same selector as GET /search/{term}/autocomplete), as JSON for the site's script."""
    term = selectors.search_term_clean(request.GET.get("q", ""))[:TERM_MAX_LENGTH]
    items = selectors.search_autocomplete(term=term, viewer=request.user, limit=SUGGEST_LIMIT) if term else []
    response = JsonResponse({"q": term, "suggestions": [{"type": i["type"], "name": i["name"]} for i in items]})
    response["Cache-Control"] = "private, max-age=30"
    return response
