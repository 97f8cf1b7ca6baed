"""Helpers of the upload-flow tests: real file bytes, and the store POST a third-party client makes."""

import io
import struct

import requests
from PIL import Image as PILImage

from apps.uploads.flow import services
from apps.uploads.models import Upload


# A closed tetrahedron as an ASCII STL: what the docs' upload examples and the device example send.
ASCII_STL = b"""solid clip
facet normal 0 0 -1
outer loop
vertex 0 0 0
vertex 0 10 0
vertex 10 0 0
endloop
endfacet
facet normal 0 -1 0
outer loop
vertex 0 0 0
vertex 10 0 0
vertex 0 0 10
endloop
endfacet
facet normal -1 0 0
outer loop
vertex 0 0 0
vertex 0 0 10
vertex 0 10 0
endloop
endfacet
facet normal 0.577 0.577 0.577
outer loop
vertex 10 0 0
vertex 0 10 0
vertex 0 0 10
endloop
endfacet
endsolid clip
"""


def stl_bytes() -> bytes:
    """A binary STL of a closed tetrahedron (10 mm edges)."""
    triangles = [
        ((0, 0, 0), (10, 0, 0), (0, 10, 0)),
        ((0, 0, 0), (0, 10, 0), (0, 0, 10)),
        ((0, 0, 0), (0, 0, 10), (10, 0, 0)),
        ((10, 0, 0), (0, 0, 10), (0, 10, 0)),
    ]
    out = io.BytesIO()
    out.write(b"thingyard test tetrahedron".ljust(80, b" "))
    out.write(struct.pack("<I", len(triangles)))
    for tri in triangles:
        out.write(struct.pack("<3f", 0, 0, 0))
        for vertex in tri:
            out.write(struct.pack("<3f", *vertex))
        out.write(struct.pack("<H", 0))
    return out.getvalue()


def png_bytes(size=(64, 48), color=(200, 40, 40)) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def store_post(
    descriptor: dict, data: bytes, *, filename: str = "file.bin", content_type: str = ""
) -> requests.Response:
    """spec §4.10 step 3, as a client does it: the fields in order, then the file; no Authorization."""
    parts = list(descriptor["fields"].items())
    return requests.post(
        descriptor["action"],
        data=parts,
        files={"file": (filename, data, content_type or descriptor["fields"].get("Content-Type", ""))},
        allow_redirects=False,
        timeout=10,
    )


def upload_started(*, owner, target_id, filename="part.stl", kind=Upload.Kind.THING_FILE) -> Upload:
    return services.upload_start(owner=owner, kind=kind, target_id=target_id, filename=filename)
