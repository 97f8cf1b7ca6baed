"""Site pages of files: the Thing page's files section and its download links (session login; the API
has its own routes)."""
from django.http import Http404, HttpResponseRedirect

from apps.core.exceptions import NotFound
from apps.things.selectors import thing_get_for_page
from apps.uploads.files import selectors, services
from apps.uploads.links import file_thumbnail_url, formatted_size


def thing_page_files(*, request, thing) -> list[dict]:
    """The Thing page's `files` section (registered with apps.things.hooks from UploadsConfig.ready())."""
    return [
        {"name": f.name, "size": formatted_size(f.size), "thumbnail": file_thumbnail_url(f),
         "download": f"/thing:{thing.pk}/files/{f.pk}/download"}
        for f in selectors.thing_file_list(thing=thing, viewer=request.user)
    ]


def file_download_page(request, thing_id: int, file_id: int):
    """Download a file of a Thing the visitor may see; signed-in visitors get it in their history."""
    try:
        thing = thing_get_for_page(thing_id, viewer=request.user)
        file = selectors.thing_file_get(thing=thing, file_id=file_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    return HttpResponseRedirect(services.file_download(file=file, user=request.user))
