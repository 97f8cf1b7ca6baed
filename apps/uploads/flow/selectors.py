"""Reads of the upload flow."""
from apps.core.domain.exceptions import NotFound
from apps.core.pipeline.lookups import id_or_404
from apps.uploads.models import Upload


def upload_get_own(upload_id, *, owner) -> Upload:
    """One of `owner`'s uploads with what it became (file or image): 404 for anyone else's or unknown
    (the site's finalize page)."""
    upload = (
        Upload.objects.select_related("file", "image").filter(pk=id_or_404(upload_id), owner_id=owner.pk).first()
    )
    if upload is None:
        raise NotFound()
    return upload
