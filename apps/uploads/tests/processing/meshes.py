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


def sphere_triangles(facets: int, radius: float = 40.0) -> np.ndarray:
    """(≈facets, 3, 3) float32 triangles of a closed UV sphere: an honest many-facet model."""
    rings = max(2, int(np.sqrt(facets / 4)))
    segments = max(3, facets // (2 * rings))
    theta = np.linspace(0, np.pi, rings + 1)
    phi = np.linspace(0, 2 * np.pi, segments + 1)[:-1]
    grid = np.stack(np.meshgrid(theta, phi, indexing="ij"), axis=-1)
    points = radius * np.stack([np.sin(grid[..., 0]) * np.cos(grid[..., 1]),
                                np.sin(grid[..., 0]) * np.sin(grid[..., 1]), np.cos(grid[..., 0])], axis=-1)
    i, j = np.meshgrid(np.arange(rings), np.arange(segments), indexing="ij")
    j1 = (j + 1) % segments
    a, b, c, d = points[i, j], points[i + 1, j], points[i + 1, j1], points[i, j1]
    tris = np.concatenate([np.stack([a, b, c], axis=-2), np.stack([a, c, d], axis=-2)]).reshape(-1, 3, 3)
    return tris.astype(np.float32)


def ascii_stl_fast(triangles: np.ndarray, name: str = "model", *, fmt: str = "%.6e") -> bytes:
    """ascii_stl for many triangles (one %-format per file rather than a Python line per vertex)."""
    facet = ("  facet normal F F F\n    outer loop\n" + "      vertex F F F\n" * 3
             + "    endloop\n  endfacet\n").replace("F", fmt)
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    values = np.concatenate([normals, triangles.reshape(-1, 9)], axis=1).astype(np.float64)
    body = (facet * len(values)) % tuple(values.ravel().tolist())
    return f"solid {name}\n{body}endsolid {name}\n".encode()
