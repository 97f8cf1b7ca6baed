""""Open in slicer" (issue 27): links that hand a model file to a desktop slicer, and the signed route the
slicer fetches the bytes from.

A slicer opened by a URL scheme downloads the file itself, without the member's browser session, so
its link names a signed, expiring route of this service (`/files/<id>/open/<token>/<name>`) that answers
the bytes to a plain GET. The token is Django's TimestampSigner over the file id (SECRET_KEY-keyed, its
own salt), valid LINK_SECONDS: a capability URL like the store's signed URLs, for the one file only.

Which slicers (checked against their projects' issue trackers, 2026): only those whose URL scheme opens
a model from any host are offered:
- OrcaSlicer, `orcaslicer://open?file=<url>` (Thingiverse's "Open in Orca Slicer" uses it);
- Cura, `cura://open?file=<url>` (Thingiverse's "Open in Cura").
Not offered: PrusaSlicer's `prusaslicer://open?file=` downloads from a fixed allow-list of hosts
(printables.com, thingiverse.com, cults3d.com; prusa3d/PrusaSlicer#13752 and #14313, closed as not
planned), and Bambu Studio's `bambustudio://open?file=` from makerworld.com only (bambulab/BambuStudio
#6120), with another scheme on macOS (#9543): a button for them could never work for Thingyard.
"""
from pathlib import PurePosixPath
from urllib.parse import quote

from django.core import signing

from apps.core.pipeline.api import site_url

LINK_SECONDS = 24 * 3600  # the Thing page may sit open in a tab for a while before the click
_SALT = "thingyard.uploads.slicer-link"
SLICERS = (
    ("orcaslicer", "OrcaSlicer", "orcaslicer://open?file={url}"),
    ("cura", "Cura", "cura://open?file={url}"),
)
# What these slicers open; other files get no button.
OPENABLE_SUFFIXES = {".stl", ".3mf", ".obj"}
CONTENT_TYPES = {".stl": "model/stl", ".3mf": "model/3mf", ".obj": "model/obj"}


def file_is_openable(name: str) -> bool:
    return PurePosixPath(name.lower()).suffix in OPENABLE_SUFFIXES


def _signer() -> signing.TimestampSigner:
    return signing.TimestampSigner(salt=_SALT)


def file_open_path(file_id: int, name: str) -> str:
    """The signed path of the file's bytes (no session needed), ending with its name (slicers take the
    format and the object's name from it)."""
    token = _signer().sign(str(file_id)).split(":", 1)[1]
    return f"/files/{file_id}/open/{token}/{quote(name, safe='')}"


def file_open_token_valid(file_id: int, token: str) -> bool:
    try:
        _signer().unsign(f"{file_id}:{token}", max_age=LINK_SECONDS)
    except signing.BadSignature:  # SignatureExpired is one
        return False
    return True


def slicer_links(file_id: int, name: str) -> list[dict]:
    """[{id, label, url}] of the slicer buttons of a live model file."""
    if not file_is_openable(name):
        return []
    fetch = quote(site_url(file_open_path(file_id, name).lstrip("/")), safe="")
    return [{"id": key, "label": label, "url": pattern.format(url=fetch)} for key, label, pattern in SLICERS]
