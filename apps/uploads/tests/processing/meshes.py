"""Test meshes, generated (never shipped as binaries): cubes as binary and ASCII STL bytes."""
import struct

import numpy as np

# A unit cube's 12 triangles, wound outwards (corner indices into _CORNERS).
_CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.float32)
_FACES = [
    (0, 1, 3), (0, 3, 2),  # x = 0
    (4, 6, 7), (4, 7, 5),  # x = 1
    (0, 4, 5), (0, 5, 1),  # y = 0
    (2, 3, 7), (2, 7, 6),  # y = 1
    (0, 2, 6), (0, 6, 4),  # z = 0
    (1, 5, 7), (1, 7, 3),  # z = 1
]


def cube_triangles(side: float = 10.0, *, origin=(0.0, 0.0, 0.0), drop: int = 0) -> np.ndarray:
    """(12 - drop, 3, 3) float32 triangles of a cube; `drop` removes the last faces (an open mesh)."""
    tris = _CORNERS[np.array(_FACES[: len(_FACES) - drop])] * side + np.asarray(origin, dtype=np.float32)
    return tris.astype(np.float32)


def binary_stl(triangles: np.ndarray, *, header: bytes = b"binary stl from the tests", count=None) -> bytes:
    records = bytearray()
    for tri in triangles:
        # Hostile-input tests write NaN/inf/huge coordinates on purpose; their normals may overflow.
        with np.errstate(invalid="ignore", over="ignore"):
            n = np.cross(tri[1] - tri[0], tri[2] - tri[0])
        records += struct.pack("<3f", *n) + struct.pack("<9f", *tri.ravel()) + b"\0\0"
    declared = len(triangles) if count is None else count
    return header.ljust(80, b" ")[:80] + struct.pack("<I", declared) + bytes(records)


def ascii_stl(triangles: np.ndarray, name: str = "cube") -> bytes:
    lines = [f"solid {name}"]
    for tri in triangles:
        lines += ["  facet normal 0 0 0", "    outer loop"]
        lines += [f"      vertex {x:.6e} {y:.6e} {z:.6e}" for x, y, z in tri]
        lines += ["    endloop", "  endfacet"]
    lines.append(f"endsolid {name}")
    return ("\n".join(lines) + "\n").encode()
