"""Categories, tags (spec §4.7) and the discovery lists beyond the spec: parse → selector → serialise.

Every list is paginated (docs/decisions.md: Pagination) and costs a constant number of queries: the token,
the category or tag when the path names one, then one COUNT and one SELECT.
"""
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.core.pipeline.api import paginated_response
from apps.core.domain.moderation import viewer_sees_hidden
from apps.core.pipeline.pagination import LinkHeaderPagination, Total, link_header, list_total, page_params
from apps.core.pipeline import versions
from apps.core.pipeline.renderers import Rendered
from apps.things import bodies, bodycache, selectors
from apps.things.serializers import CategorySerializer, TagSerializer, ThingShortSerializer

SLUG_PARAM = OpenApiParameter(
    "slug", str, OpenApiParameter.PATH, description="A category slug, e.g. `replacement-parts`."
)
TAG_PARAM = OpenApiParameter(
    "tag",
    str,
    OpenApiParameter.PATH,
    description="A tag, normalised as in spec §2 (whitespace → `_`, other characters than letters, "
    "digits, `_` and `-` removed) and matched ignoring case.",
)


class CategoryTreeSerializer(CategorySerializer):
    """docs/decisions.md's Category plus `parent`: the parent's slug, null for a top-level category, so a
    client can rebuild the tree from the one list."""

    # DRF's metaclass moves declared fields off the class: this does not shadow Field.parent.
    parent = serializers.SerializerMethodField()  # type: ignore[assignment]

    def get_parent(self, category) -> str | None:
        return category.parent.slug if category.parent_id else None  # parent is select_related


def _things_response(request, view, things, *, list_name: str | None = None, total: Total = None) -> Response:
    """A page of the Things list `things()` builds. With the body cache: the page's ids by the list's own
    filter and order (a lean statement: no picture join), then each Thing's cached short form;
    a public list (`list_name`, bodies.LIST_PAGES) read by a viewer who is not staff is kept rendered.
    `total`: the list's length, or how to get it, when the list's own COUNT would not give it or would cost
    more (LinkHeaderPagination.paginate_queryset); else the list is counted."""
    staff = viewer_sees_hidden(request.user)
    known = getattr(view, "prefetched", None)  # the count's cache entry when it was read (KeptListView)
    if not bodycache.cache_seconds():
        # A named public list's page is one statement compiled once (the first read's cost), read with the
        # token's row when the authentication read that from the database (KeptListView.read_with_token).
        rows = selectors.thing_list_rows_compiled(list_name) if list_name and not staff else None
        if rows is None:
            return paginated_response(request, things(), ThingShortSerializer, view=view, total=total)
        with_token = getattr(view, "with_token", None)
        page = with_token.rows_for(request.user) if with_token is not None else None
        read = (with_token.window, page) if with_token is not None and page is not None else None
        return paginated_response(request, rows.bound(read=read, known=known), ThingShortSerializer, view=view)

    compiled = selectors.thing_list_ids_compiled(list_name) if list_name and not staff else None

    def ids_page():
        """([(id, version)], page number, pages): the versions the page's cached short forms and its kept
        page are validated by, read by the same statement as the ids."""
        if compiled is not None:
            ids_source = compiled.bound(known=known)  # the statement compiled once (apps.core.db.compiled)
        else:
            with selectors.thing_ids_only():
                ids_source = things().values_list("pk", "version")
        paginator = LinkHeaderPagination()
        pairs = paginator.paginate_queryset(ids_source, request, view=view, total=total)
        return [tuple(p) for p in pairs], paginator.page.number, paginator.page.paginator.num_pages

    if list_name is not None and not staff:
        shorts, number, pages = bodies.list_page_read(list_name, request, ids_page)
    else:
        pairs, number, pages = ids_page()
        shorts = bodies.thing_short_list([tid for tid, _ in pairs], request=request, known=dict(pairs))
    return Response(shorts, headers={"Link": link_header(request, number, pages)})


class KeptListView(ApiView):
    """A public list whose pages are kept rendered (bodies.LIST_PAGES): a page a viewer who is not staff
    asks for is answered from the kept page while the database says it still stands (one statement,
    bodies.list_page_cached), else built by `_things_response` and kept. Either way through the same
    pipeline (ApiView: authentication, rate limit, headers, ETag and 304)."""

    list_name = ""

    def things(self, request):
        raise NotImplementedError

    def total(self, request):
        """The list's length, or how to get it, when counting `things()` would not give it (None: count)."""
        return None

    def cache_keys(self, request, **kwargs):
        # The kept page, and the list's cached total (read in the same round trip as the token's row or
        # the rate-limit count: ApiView.cached_values; the total is needed when the page is built).
        keys = bodies.list_page_keys(self.list_name, request.GET) or []
        rows = selectors.thing_list_rows_compiled(self.list_name)
        if rows is not None:
            keys.append(rows.count_key())
        return keys or None

    def read_with_token(self, request, **kwargs):
        """The page's rows, read with the token's row, when the page is built from its statement (pages
        not kept: with kept pages the kept page answers, checked by a lighter statement)."""
        rows = selectors.thing_list_rows_compiled(self.list_name)
        params = page_params(request.GET)
        if rows is None or params is None or params[0] < 1 or bodycache.cache_seconds():
            return None
        number, per_page = params
        return rows.read_with_token(per_page, (number - 1) * per_page)

    def get(self, request):
        kept = self._kept_page(request)
        if kept is not None:
            return Response(kept, headers=kept.headers)
        return _things_response(
            request, self, lambda: self.things(request), list_name=self.list_name, total=self.total(request)
        )

    def _kept_page(self, request) -> Rendered | None:
        if viewer_sees_hidden(request.user) or versions.of(request) != versions.SPEC:
            return None  # staff see hidden Things; another wire version's pages are not kept
        keys = bodies.list_page_keys(self.list_name, request.GET)
        if not keys:
            return None
        found = bodies.list_page_cached(self.list_name, self.cached_values(keys), request.GET)
        if found is None:
            return None
        body, number, pages = found
        return Rendered(body, {"Link": link_header(request, number, pages)}, from_cache=True)


class CategoryListView(ApiView):
    @extend_schema(
        responses=CategoryTreeSerializer(many=True),
        summary="List categories",
        description="Every category in tree order: each top-level category followed by its children.",
    )
    def get(self, request):
        categories = selectors.category_list(viewer=request.user)
        return paginated_response(request, categories, CategoryTreeSerializer, view=self)


class CategoryDetailView(ApiView):
    @extend_schema(parameters=[SLUG_PARAM], responses=CategoryTreeSerializer, summary="Get a category")
    def get(self, request, slug):
        category = selectors.category_get(slug, viewer=request.user)
        return Response(CategoryTreeSerializer(category, context={"request": request}).data)


class CategoryThingsView(ApiView):
    @extend_schema(
        parameters=[SLUG_PARAM],
        responses=ThingShortSerializer(many=True),
        summary="List the Things of a category",
        description="Published Things of the category and of its sub-categories, newest first. "
        "404 if the category does not exist.",
    )
    def get(self, request, slug):
        category = selectors.category_get(slug, viewer=request.user)
        return _things_response(
            request, self, lambda: selectors.category_list_things(category=category, viewer=request.user),
            total=selectors.thing_count_of(category),
        )


class TagListView(ApiView):
    @extend_schema(
        responses=TagSerializer(many=True),
        summary="List tags",
        description="Every tag carried by at least one published Thing, in alphabetical order.",
    )
    def get(self, request):
        return paginated_response(request, selectors.tag_list(viewer=request.user), TagSerializer, view=self)


class TagDetailView(ApiView):
    @extend_schema(parameters=[TAG_PARAM], responses=TagSerializer, summary="Get a tag")
    def get(self, request, tag):
        found = selectors.tag_get(tag, viewer=request.user)
        return Response(TagSerializer(found, context={"request": request}).data)


class TagThingsView(ApiView):
    @extend_schema(
        parameters=[TAG_PARAM],
        responses=ThingShortSerializer(many=True),
        summary="List the Things with a tag",
        description="Published Things with the tag, newest first. 404 if no published Thing has the tag.",
    )
    def get(self, request, tag):
        found = selectors.tag_get(tag, viewer=request.user)
        return _things_response(
            request, self, lambda: selectors.tag_list_things(tag=found, viewer=request.user), total=selectors.thing_count_of(found)
        )


class NewestThingsView(KeptListView):
    list_name = "newest"

    @extend_schema(responses=ThingShortSerializer(many=True), summary="List the newest Things")
    def get(self, request):
        return super().get(request)

    def things(self, request):
        return selectors.thing_list_newest(viewer=request.user)


class PopularThingsView(KeptListView):
    list_name = "popular"

    @extend_schema(
        responses=ThingShortSerializer(many=True),
        summary="List popular Things",
        description="Published Things ranked by activity: likes of the last 30 days (weight 10), makes "
        "(weight 20) and downloads (weight 1); ties by newest.",
    )
    def get(self, request):
        return super().get(request)

    def things(self, request):
        # A deep page reads its own Things, not the ones before it; an early one ranks only the Things that can
        # be on the pages up to it (selectors.PopularPages). A page past the end is answered with the last one;
        # with a value that is not a number, the paginator answers 400 before any row is read.
        return selectors.thing_list_popular_pages(viewer=request.user)

    def total(self, request):
        # Every published Thing is on the list; its candidates-only statement must not be what is counted.
        return lambda: list_total(selectors.thing_list_published(viewer=request.user))


class FeaturedThingsView(KeptListView):
    list_name = "featured"

    @extend_schema(
        responses=ThingShortSerializer(many=True),
        summary="List featured Things",
        description="Published Things featured by moderators, the most recently featured first.",
    )
    def get(self, request):
        return super().get(request)

    def things(self, request):
        return selectors.thing_list_featured(viewer=request.user)
