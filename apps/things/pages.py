"""Server-rendered site pages of Things (session login): the Thing page at its `url` and the front page."""
from django.http import Http404
from django.shortcuts import render

from apps.accounts.links import user_public_url
from apps.core.exceptions import NotFound
from apps.core.licenses import license_name
from apps.thingapps.selectors import site_urls_for, thing_app_list_for_viewer
from apps.things import links, selectors
from apps.uploads.links import file_thumbnail_url, formatted_size
from apps.uploads.selectors import thing_file_list

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
        "files": [
            {"name": f.name, "size": formatted_size(f.size), "thumbnail": file_thumbnail_url(f),
             "download": f"/thing:{thing.pk}/files/{f.pk}/download"}
            for f in thing_file_list(thing=thing, viewer=request.user)
        ],
        "is_owner": request.user.is_authenticated and request.user.pk == thing.creator_id,
        # spec §4.11: the Thing apps a signed-in user can open here (none, and no query, for visitors).
        "thing_apps": thing_app_list_for_viewer(viewer=request.user, site_urls=site_urls_for(request)),
    }
    return render(request, "things/thing_detail.html", context)


def index(request):
    """/: the newest published Things."""
    things = list(selectors.thing_list_newest(viewer=request.user)[:INDEX_SIZE])
    rows = [{"thing": thing, "thumbnail": links.thing_thumbnail_url(thing)} for thing in things]
    return render(request, "things/index.html", {"rows": rows})
