"""Site pages of files: the Thing page's download links (session login; the API has its own route)."""
from django.http import Http404, HttpResponseRedirect

from apps.core.exceptions import NotFound
from apps.things.selectors import thing_get_for_page
from apps.uploads import selectors, services_files


def file_download_page(request, thing_id: int, file_id: int):
    """Download a file of a Thing the visitor may see; signed-in visitors get it in their history."""
    try:
        thing = thing_get_for_page(thing_id, viewer=request.user)
        file = selectors.thing_file_get(thing=thing, file_id=file_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    return HttpResponseRedirect(services_files.file_download(file=file, user=request.user))
