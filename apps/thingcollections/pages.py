"""The collection's site page at its `absolute_url`, /collection:<id> (session login or anonymous).

A collection is public; the Things listed are those the visitor may see (selectors), as in the API.
"""
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_safe

from apps.accounts.links import user_public_url
from apps.core.exceptions import NotFound
from apps.thingcollections import selectors
from apps.things.links import thing_public_url, thing_thumbnail_url

PAGE_SIZE = 60


@require_safe
def collection_page(request, collection_id):
    try:
        collection = selectors.collection_get(collection_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    things = selectors.collection_list_things(collection=collection, viewer=request.user)[:PAGE_SIZE]
    context = {
        "collection": collection,
        "creator_url": user_public_url(collection.creator),
        "things": [
            {"name": thing.name, "url": thing_public_url(thing.pk), "thumbnail": thing_thumbnail_url(thing)}
            for thing in things
        ],
    }
    return render(request, "thingcollections/collection_detail.html", context)
