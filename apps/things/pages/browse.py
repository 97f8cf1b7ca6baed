"""Browsing Things on the site: the front page, newest / popular / featured, categories and tags.

Every list comes from the selectors the API's lists use (published, not hidden: thing_public_q), in a
constant number of queries: a page of cards is its count and its rows, thumbnails included.
"""

from django.http import Http404
from django.shortcuts import render

from apps.core.domain.exceptions import NotFound
from apps.core.domain.moderation import viewer_sees_hidden
from apps.core.pipeline.pagination import list_total
from apps.core.site.pages import paginate
from apps.things import selectors

FRONT_FEATURED = 4
FRONT_NEWEST = 12
FRONT_POPULAR = 8
LISTS = {
    "newest": ("Newest Things", "The latest published designs.", selectors.thing_list_newest),
    "popular": (
        "Popular Things",
        "Liked, made and downloaded most in the last 30 days.",
        selectors.thing_list_popular,
    ),
    "featured": ("Featured Things", "Picked by the moderators.", selectors.thing_list_featured),
}


def index(request):
    """/: featured, newest and popular Things, and the categories."""
    viewer = request.user
    context = {
        "featured": list(selectors.thing_list_featured(viewer=viewer)[:FRONT_FEATURED]),
        "newest": list(selectors.thing_list_newest(viewer=viewer)[:FRONT_NEWEST]),
        "popular": list(selectors.thing_list_popular_pages(viewer=viewer)[:FRONT_POPULAR]),
        "categories": list(selectors.category_top_list(viewer=viewer)),
    }
    return render(request, "things/index.html", context)


def browse_list(request, kind: str):
    """/browse/newest, /browse/popular, /browse/featured: a paginated list of cards."""
    if kind not in LISTS:
        raise Http404
    title, lead, listing = LISTS[kind]
    if kind == "popular":
        # A deep page reads its own Things; an early one ranks the Things that can be on the pages up to it
        # (selectors.PopularPages). The list's length is that of every published Thing.
        total = list_total(selectors.thing_list_published(viewer=request.user))
        page = paginate(request, selectors.thing_list_popular_pages(viewer=request.user), total=total)
    else:
        # For anyone but staff (who see hidden Things), the list's statement compiled once, as the API reads
        # it: a page after the first chosen by its ids in the list's index (apps.core.db.compiled).
        rows = None if viewer_sees_hidden(request.user) else selectors.thing_list_rows_compiled(kind)
        page = paginate(request, rows.bound() if rows is not None else listing(viewer=request.user))
    context = {"title": title, "lead": lead, "kind": kind, "page": page, "lists": LISTS}
    return render(request, "things/browse_list.html", context)


def category_index(request):
    """/browse/categories: the category tree with the number of published Things in each."""
    tree: list[dict] = []
    for category in selectors.category_list(viewer=request.user):
        if category.parent_id is None:
            tree.append({"category": category, "children": []})
        elif tree and tree[-1]["category"].pk == category.parent_id:
            tree[-1]["children"].append(category)
    return render(request, "things/category_index.html", {"tree": tree})


def category_page(request, slug: str):
    """/browse/categories/<slug>: its Things (sub-categories included), newest first; 404 if unknown."""
    try:
        category = selectors.category_get(slug, viewer=request.user)
    except NotFound:
        raise Http404 from None
    context = {
        "category": category,
        "children": list(selectors.category_children(category=category, viewer=request.user)),
        "page": paginate(request, selectors.category_list_things(category=category, viewer=request.user),
                         total=selectors.thing_count_of(category)),
    }
    return render(request, "things/category.html", context)


def tag_page(request, tag: str):
    """/browse/tags/<tag>: the published Things carrying it; 404 for a tag no published Thing carries."""
    try:
        tag_obj = selectors.tag_get(tag, viewer=request.user)
    except NotFound:
        raise Http404 from None
    things = selectors.tag_list_things(tag=tag_obj, viewer=request.user)
    page = paginate(request, things, total=selectors.thing_count_of(tag_obj))
    return render(request, "things/tag.html", {"tag": tag_obj, "page": page})
