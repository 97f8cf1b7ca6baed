"""Reads of Thing packages: what a package holds, and its row."""
from apps.uploads.models import ProcessingStatus, ThingFile, ThingPackage

LIVE = ProcessingStatus.LIVE


def thing_live_files(*, thing_id) -> list[ThingFile]:
    """What a package holds: the live files, oldest first (their order in the ZIP)."""
    return list(ThingFile.objects.filter(thing_id=thing_id, status=LIVE).order_by("added", "id"))


def thing_package_get(*, thing_id) -> ThingPackage | None:
    return ThingPackage.objects.filter(thing_id=thing_id).first()
