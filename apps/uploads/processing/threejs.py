"""three.js BufferGeometry JSON (format 4.5) of a mesh, streamed to a file chunk by chunk.

Non-indexed geometry, as THREE.BufferGeometryLoader reads it: `position` holds 9 floats per triangle and
`normal` the face normal repeated for its three vertices (computed from the vertices; STL files often
carry zero or wrong normals). Numbers are written with 4 decimals (0.1 µm; unit vectors to 1e-4), which
keeps the file about half the size of full float32 reprs. The two arrays are written one after the
other, a chunk at a time, so memory stays constant whatever the triangle count.
"""
from pathlib import Path

import numpy as np

from apps.uploads.processing.stl import Mesh

NUMBER = "%.4f"  # 0.1 µm for positions in mm; 1e-4 for unit normals
CHUNK = 8192  # triangles per formatted chunk: ~74k numbers, a few MB of transient Python objects
GENERATOR = "Thingyard"


def _write_numbers(out, chunks) -> None:
    # One C-level %-format per chunk: about twice as fast as repr() per number, and no list of strings.
    first = True
    formats: dict[int, str] = {}
    for values in chunks:
        flat = values.ravel().tolist()
        if not flat:
            continue
        fmt = formats.get(len(flat))
        if fmt is None:
            fmt = formats[len(flat)] = ",".join([NUMBER] * len(flat))
        if not first:
            out.write(",")
        out.write(fmt % tuple(flat))
        first = False


def _positions(mesh: Mesh):
    for _, tri in mesh.chunks(CHUNK):
        yield tri


def _normals(mesh: Mesh):
    for _, tri in mesh.chunks(CHUNK):
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        length = np.linalg.norm(n, axis=1, keepdims=True)
        n = np.divide(n, length, out=np.zeros_like(n), where=length > 0)  # degenerate triangle: 0,0,0
        yield np.repeat(n[:, None, :], 3, axis=1)


def threejs_write(mesh: Mesh, out: Path) -> Path:
    """Write the mesh's BufferGeometry JSON to `out`."""
    with open(out, "w", encoding="ascii", buffering=1 << 20) as fh:
        fh.write('{"metadata":{"version":4.5,"type":"BufferGeometry","generator":"%s"},' % GENERATOR)
        fh.write('"type":"BufferGeometry","data":{"attributes":{')
        fh.write('"position":{"itemSize":3,"type":"Float32Array","normalized":false,"array":[')
        _write_numbers(fh, _positions(mesh))
        fh.write(']},"normal":{"itemSize":3,"type":"Float32Array","normalized":false,"array":[')
        _write_numbers(fh, _normals(mesh))
        fh.write("]}}}}")
    return out
