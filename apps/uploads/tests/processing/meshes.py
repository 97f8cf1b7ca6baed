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


# --- 3MF and OBJ ---------------------------------------------------------------------------------------

CUBE_VERTICES = _CORNERS  # (8, 3): the cube's corners, for formats that index their vertices
CUBE_FACES = np.array(_FACES)  # (12, 3) corner indices, wound outwards
CORE_NS = "http://schemas.microsoft.com/3dmanufacturing/core/2015/02"
PRODUCTION_NS = "http://schemas.microsoft.com/3dmanufacturing/production/2015/06"


def model_xml(objects: str, items: str, *, unit: str = "millimeter", head: str = "", metadata: str = "") -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>{head}\n'
            f'<model unit="{unit}" xml:lang="en-US" xmlns="{CORE_NS}" xmlns:p="{PRODUCTION_NS}">{metadata}'
            f"<resources>{objects}</resources><build>{items}</build></model>")


def mesh_object(object_id: int, side: float = 10.0, *, name: str = "cube", faces=None) -> str:
    vertices = "".join(f'<vertex x="{x:g}" y="{y:g}" z="{z:g}"/>' for x, y, z in CUBE_VERTICES * side)
    faces = CUBE_FACES if faces is None else faces
    triangles = "".join(f'<triangle v1="{a}" v2="{b}" v3="{c}"/>' for a, b, c in faces)
    return (f'<object id="{object_id}" name="{name}" type="model"><mesh><vertices>{vertices}</vertices>'
            f"<triangles>{triangles}</triangles></mesh></object>")


def threemf_zip(model: str, *, files: dict | None = None, compression=None) -> bytes:
    """A 3MF archive: the model part at 3D/3dmodel.model (with its relationship) and `files`."""
    import io
    import zipfile

    rels = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel0" '
            'Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression or zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("_rels/.rels", rels)
        zf.writestr("3D/3dmodel.model", model)
        for name, content in (files or {}).items():
            zf.writestr(name, content)
    return out.getvalue()


def cube_3mf(side: float = 10.0) -> bytes:
    return threemf_zip(model_xml(mesh_object(1, side), '<item objectid="1"/>'))


def cube_obj(side: float = 10.0, *, quads: bool = False, negative: bool = False, name: str = "cube") -> bytes:
    lines = [f"# a cube\nmtllib cube.mtl\no {name}"]
    lines += [f"v {x:g} {y:g} {z:g}" for x, y, z in CUBE_VERTICES * side]
    lines += ["vn 0 0 1", "vt 0 0"]
    faces = CUBE_FACES + 1
    if quads:  # pairs of triangles (a, b, c) + (a, c, d) as one quad a b c d
        polygons = [[*faces[i], faces[i + 1][2]] for i in range(0, 12, 2)]
    else:
        polygons = faces.tolist()
    for polygon in polygons:
        refs = [str(i - 9) if negative else f"{i}/1/1" for i in polygon]
        lines.append("f " + " ".join(refs))
    return ("\n".join(lines) + "\n").encode()
