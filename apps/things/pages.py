"""Server-rendered site pages of Things (session login): the Thing page at its `url` and the front page."""
from django.http import Http404
from django.shortcuts import render

from apps.accounts.links import user_public_url
from apps.core.exceptions import NotFound
from apps.core.licenses import license_name
from apps.things import links, selectors
from apps.things.hooks import thing_page_sections

INDEX_SIZE = 30


def thing_page(request, thing_id):
    """/thing:<id>: published Things for everyone, a draft only for its signed-in owner; else 404."""
    try:
        thing = selectors.thing_get_for_page(thing_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    context = {
        "thing": thing,
        "thumbnail": links.thing_thumbnail_url(thing),
        "license": license_name(thing.license),
        "creator_url": user_public_url(thing.creator),
        "tags": list(thing.tags.all()),
        "ancestors": list(selectors.thing_list_ancestors(thing=thing, viewer=request.user)),
        "is_owner": request.user.is_authenticated and request.user.pk == thing.creator_id,
        # What apps built on Things add to the page (hooks.thing_page_section_register): the files
        # (apps.uploads) and, spec §4.11, the Thing apps a signed-in user can open here (apps.thingapps).
        **thing_page_sections(request=request, thing=thing),
    }
    return render(request, "things/thing_detail.html", context)


def index(request):
    """/: the newest published Things."""
    things = list(selectors.thing_list_newest(viewer=request.user)[:INDEX_SIZE])
    rows = [{"thing": thing, "thumbnail": links.thing_thumbnail_url(thing)} for thing in things]
    return render(request, "things/index.html", {"rows": rows})
