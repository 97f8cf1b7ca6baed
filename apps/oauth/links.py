"""URLs of an application as pages show them."""
from django.core.files.storage import default_storage


def application_logo_url(application) -> str:
    """The app's logo in the object store, "" for none (pages then draw its initial)."""
    return default_storage.url(application.logo) if application.logo else ""
