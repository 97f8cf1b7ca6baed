"""URLs of an application as pages show them."""
from apps.core.storage.presign import presigned_get_url


def application_logo_url(application) -> str:
    """The app's logo in the object store, "" for none (pages then draw its initial)."""
    return presigned_get_url(application.logo) if application.logo else ""
