"""The make's site page (session login) at its `public_url`, /make:<id>."""
from django.http import Http404
from django.shortcuts import render

from apps.accounts.links import user_public_url
from apps.core.exceptions import NotFound
from apps.makes import links, selectors
from apps.things.links import thing_public_url
from apps.uploads import links as upload_links


def make_page(request, make_id):
    """404 for anything the visitor may not see (a hidden make, or one of a draft Thing not theirs)."""
    try:
        make = selectors.make_get_for_page(make_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    images = [{"name": image.name, "url": _display_url(image)} for image in make.image_list]
    context = {
        "make": make,
        "thumbnail": links.make_thumbnail_url(make),
        "images": images,
        "thing_url": thing_public_url(make.thing_id),
        "creator_url": user_public_url(make.creator),
        "is_creator": request.user.is_authenticated and request.user.pk == make.creator_id,
    }
    return render(request, "makes/make_detail.html", context)


def _display_url(image) -> str:
    """The medium display size (800×600) when rendered, else the original."""
    sizes = upload_links.image_sizes(image.sizes, type="display", size="medium")
    return sizes[0]["url"] if sizes else upload_links.store_url(image.key)
