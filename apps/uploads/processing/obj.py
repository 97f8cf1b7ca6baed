"""Wavefront OBJ read into a binary STL, so it is measured, rendered and previewed as an STL is (stl.py).

What is read: `v x y z [w | r g b]` vertices, `f` faces of three or more vertex references
(`i`, `i/t`, `i//n`, `i/t/n`; negative indices count back from the vertices defined so far; polygons
are triangulated as fans, which is exact for the convex polygons exporters write) and `o` object names
(the file's objects, with their triangle counts). Everything else (normals, texture coordinates,
groups, materials, curves) is ignored. OBJ has no unit: numbers are taken as millimetres, as slicers do.

Time and memory: the file is read in pieces of a few MB; each piece's lines are sorted by a short
Python loop and their numbers converted column-wise (C loops: bytes.split, map(float), map(int),
numpy), so a million vertices take about a second. Vertices are held (12 bytes each, float32, as an
STL stores them); triangles go to a file of vertex indices as they are read, and are resolved into the
STL at the end (faces may refer to vertices defined later). Hostile input fails with StlError: more than
max_vertices vertices or max_triangles triangles (counted as they are read), indices out of range or 0,
faces with fewer than three vertices, numbers that are not numbers, lines longer than MAX_LINE.
"""
import re
from pathlib import Path

import numpy as np

from apps.uploads.processing.stl import BinaryStlWriter, Mesh, StlError

PIECE = 8 << 20
MAX_LINE = 64 << 10
MAX_OBJECTS_LISTED = 500
_REFERENCE_TAIL = re.compile(rb"/\S*")
_LEADING_SPACE = re.compile(rb"(?m)^[ \t]+")


class ObjError(StlError):
    pass


def _floats(lines: list[bytes]) -> np.ndarray:
    """(n, 3) float64 x y z of `v` lines (extra numbers, w or a colour, ignored)."""
    tokens = b"\n".join(lines).split()
    n = len(lines)
    if len(tokens) == 4 * n and tokens[0::4].count(b"v") == n:  # the usual: exactly x y z
        columns = [tokens[1::4], tokens[2::4], tokens[3::4]]
    else:
        rows = [line.split() for line in lines]
        if any(len(row) < 4 for row in rows):
            bad = next(line for line, row in zip(lines, rows) if len(row) < 4)
            raise ObjError(f"An OBJ vertex is not three numbers: {bad[:60].decode(errors='replace')!r}.")
        columns = [[row[i] for row in rows] for i in (1, 2, 3)]
    try:
        return np.array([list(map(float, column)) for column in columns]).T.reshape(-1, 3)
    except ValueError:
        raise ObjError("An OBJ vertex has a coordinate that is not a number.") from None


def _faces(lines: list[bytes], before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(triangles (t, 3) int64 0-based vertex indices, triangles per face) of `f` lines, each with the
    number of vertices defined before it (for negative indices)."""
    # Each line's "f" becomes "0", never an index (OBJ counts from 1): one flat list of numbers, each
    # face starting after a 0. Texture and normal references ("/t/n") are dropped first.
    text = _REFERENCE_TAIL.sub(b"", b"\n".join(lines)).replace(b"f", b"0")
    try:
        values = np.array(list(map(int, text.split())), dtype=np.int64)
    except ValueError:
        raise ObjError("An OBJ face has a vertex reference that is not a number.") from None
    zeros = np.flatnonzero(values == 0)
    if len(zeros) != len(lines):
        raise ObjError("An OBJ face has fewer than three vertices (or a vertex index 0).")
    counts = np.diff(zeros, append=len(values)) - 1
    if (counts < 3).any():
        raise ObjError("An OBJ face has fewer than three vertices (or a vertex index 0).")
    offsets = zeros - np.arange(len(zeros))  # where each face starts once the zeros are gone
    refs = values[values != 0]
    relative = np.repeat(before, counts) + refs
    absolute = np.where(refs > 0, refs - 1, relative)
    if (absolute < 0).any():
        raise ObjError("An OBJ face refers back to a vertex before the first one.")
    per_face = counts - 2
    face = np.repeat(np.arange(len(counts)), per_face)
    k = np.arange(len(face)) - np.repeat(np.cumsum(per_face) - per_face, per_face)
    first = offsets[face]
    triangles = np.stack([absolute[first], absolute[first + k + 1], absolute[first + k + 2]], axis=1)
    return triangles, per_face


def _sorted_lines(piece: bytes) -> tuple[list[bytes], list[bytes], np.ndarray, list[tuple[int, bytes]]]:
    """The `v` lines, the `f` lines, each f line's count of v lines before it in the piece, and the `o`
    lines as (f lines before it, name), by the first two bytes of every line (numpy, no Python loop)."""
    if piece[:1] in (b" ", b"\t") or b"\n " in piece or b"\n\t" in piece:
        piece = _LEADING_SPACE.sub(b"", piece)
    lines = piece.split(b"\n")
    text = np.frombuffer(piece + b"\n\n", dtype=np.uint8)
    starts = np.concatenate([[0], np.flatnonzero(text[:len(piece)] == 10) + 1])
    first, separated = text[starts], np.isin(text[starts + 1], (32, 9))
    is_v, is_f, is_o = (separated & (first == ord(c)) for c in "vfo")
    table = np.array(lines, dtype=object)
    f_before = np.cumsum(is_v)[is_f]
    marks = list(zip(np.cumsum(is_f)[is_o].tolist(), (line[2:].strip()[:200] for line in table[is_o])))
    return table[is_v].tolist(), table[is_f].tolist(), f_before, marks


def obj_open(path: Path, *, workdir: Path, max_triangles: int, max_vertices: int) -> tuple[Mesh, list]:
    """The OBJ at `path` as a binary STL under `workdir`, and its objects [{name, triangles}] (the `o`
    lines; empty when it has none). ObjError (an StlError) for anything it refuses."""
    vertex_parts: list[np.ndarray] = []
    vertex_count = 0
    triangle_count = 0
    highest = -1
    objects: list[dict] = []
    index_path = workdir / "obj-indices.bin"
    with open(path, "rb") as fh, open(index_path, "wb") as indices:
        carry = b""
        while True:
            block = fh.read(PIECE)
            data = carry + block
            if not data:
                break
            cut = data.rfind(b"\n") + 1 if block else len(data)
            if block and cut == 0:
                if len(data) > MAX_LINE:
                    raise ObjError(f"The OBJ file has a line longer than {MAX_LINE:,} bytes.")
                carry = data
                continue
            piece, carry = data[:cut], data[cut:]
            if b"\0" in piece:
                raise ObjError("The file is not an OBJ (it has binary data).")
            v_lines, f_lines, f_before, marks = _sorted_lines(piece)
            before_piece = vertex_count
            if v_lines:
                vertex_count += len(v_lines)
                if vertex_count > max_vertices:
                    raise ObjError(f"The OBJ file has more than {max_vertices:,} vertices (the limit).")
                vertex_parts.append(_floats(v_lines).astype(np.float32))
            per_face = np.zeros(0, dtype=np.int64)
            if f_lines:
                triangles, per_face = _faces(f_lines, f_before.astype(np.int64) + before_piece)
                triangle_count += len(triangles)
                if triangle_count > max_triangles:
                    raise ObjError(f"The OBJ file has more than {max_triangles:,} triangles (the limit).")
                highest = max(highest, int(triangles.max()))
                indices.write(triangles.astype(np.int32).tobytes())
            # Triangles per object: an object runs from its `o` line to the next one.
            face_ends = np.concatenate([[0], np.cumsum(per_face)])
            bounds = [at for at, _ in marks] + [len(f_lines)]
            if objects and marks:  # the object open from the previous piece ends at the first mark
                objects[-1]["triangles"] += int(face_ends[bounds[0]])
            elif objects:
                objects[-1]["triangles"] += int(face_ends[-1])
            for (at, name), end in zip(marks, bounds[1:]):
                objects.append({"name": name.decode("utf-8", "replace"), "triangles": int(face_ends[end] - face_ends[at])})
    if highest >= vertex_count:
        raise ObjError(f"An OBJ face refers to vertex {highest + 1:,}; the file has {vertex_count:,}.")
    vertices = np.concatenate(vertex_parts) if vertex_parts else np.zeros((0, 3), dtype=np.float32)
    del vertex_parts
    writer = BinaryStlWriter(workdir / "obj.stl", max_triangles=max_triangles, what="OBJ file")
    try:
        with open(index_path, "rb") as fh:
            while chunk := fh.read(12 << 16):
                writer.add(vertices[np.frombuffer(chunk, dtype=np.int32).reshape(-1, 3)])
    except BaseException:
        writer.discard()
        raise
    index_path.unlink()
    mesh = writer.close("obj")
    if len(objects) > MAX_OBJECTS_LISTED:
        objects = objects[:MAX_OBJECTS_LISTED]
    return mesh, objects
