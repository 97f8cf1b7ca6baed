"""STL parsing and geometry with bounded memory (numpy, the binary file read a chunk at a time).

Binary STL: an 80-byte header, a little-endian uint32 triangle count, then 50 bytes per triangle
(normal, three vertices: 12 float32; a uint16 attribute). A file is binary exactly when its size is
84 + 50 × count: a header starting with "solid" proves nothing (many exporters write one).
Anything else that starts with "solid" is parsed as ASCII into a temporary binary STL, so both formats
are read the same way and the worker never holds a Python list of triangles. ASCII is read in pieces of
a few MB, each split into tokens and checked and converted by numpy, 21 tokens per facet (issue 22,
finding 11: the line-by-line parser took over 60 s for an honest 17 MB, 200k-facet file; this takes about
a second). A piece that does not read as regular facets is handed to the line-by-line parser, which
names the line at fault.

Memory (issue 17): every pass reads the file sequentially into one reused chunk buffer; the file is
never memory-mapped, so its pages stay in the kernel's page cache instead of counting in the worker's
RSS (a mapped 50 MB file added 50 MB to the peak). What a mesh costs beyond a constant: 8 bytes per
distinct vertex (the closed-mesh check) and about 20 bytes per drawn triangle (the thumbnail's depth
order and projected corners, render.py).

Hostile input fails with StlError (a clear message for `processing_error`): inconsistent sizes,
truncation, absurd or too many triangles, non-finite or absurd coordinates, ASCII garbage.
"""
import os
from dataclasses import dataclass
from typing import NoReturn
from pathlib import Path

import numpy as np

HEADER_BYTES = 84
RECORD = np.dtype([("normal", "<f4", (3,)), ("v", "<f4", (3, 3)), ("attr", "<u2")])
assert RECORD.itemsize == 50
DEFAULT_MAX_TRIANGLES = 5_000_000
# Coordinates are millimetres; beyond a kilometre the file is garbage, and float32 cross products of
# larger values lose all precision anyway.
MAX_ABS_COORDINATE = 1e6
CHUNK = 1 << 14  # triangles per chunk: 0.8 MB read, 1.2 MB of float64 vertices, a few MB of temporaries
EDGE_KEYS_PER_PASS = 1_000_000  # int64 edge keys held at once by the closed-mesh check (8 MB)
# Per-chunk distinct vertex keys gathered before each merge into the sorted distinct set: a merge
# costs about three times (distinct set + buffer) while it runs, so the buffer stays small.
VERTEX_KEYS_BUFFER = 1 << 20
ASCII_MAX_LINE = 1024
# Vertices closer than this (mm) are the same vertex for the closed-mesh check (STL repeats vertex
# coordinates per triangle; exporters write the same float32, so this only absorbs rounding noise).
WELD_MM = 1e-4


class StlError(ValueError):
    """The file is not an STL this service accepts; the message is shown as the processing error."""


@dataclass
class Mesh:
    format: str  # "stl-binary" | "stl-ascii" | "3mf" | "obj"
    path: Path  # a binary STL (the upload, or its conversion from ASCII)
    count: int

    def chunks(self, size: int = CHUNK, *, dtype=np.float64):
        """(start, (k, 3, 3) vertices of triangles start…start+k) for the whole mesh, in file order.

        float64 by default, so arithmetic never touches float32 limits. The array is a buffer reused
        for the next chunk: use it (or copy it) before asking for the next one."""
        size = max(1, min(size, self.count))
        records = np.empty(size, dtype=RECORD)
        vertices = np.empty((size, 3, 3), dtype=dtype)
        with open(self.path, "rb", buffering=0) as fh:
            fh.seek(HEADER_BYTES)
            for start in range(0, self.count, size):
                k = min(size, self.count - start)
                want = k * RECORD.itemsize
                got = fh.readinto(records[:k].view(np.uint8).data)
                while got < want:  # a short read (rare for a local file): read the rest
                    more = fh.readinto(records[:k].view(np.uint8)[got:].data)
                    if not more:
                        raise StlError("The STL file was truncated while it was read.")
                    got += more
                np.copyto(vertices[:k], records["v"][:k])
                yield start, vertices[:k]


def _binary_count(path: Path, size: int) -> int | None:
    if size < HEADER_BYTES:
        return None
    with open(path, "rb") as fh:
        fh.seek(80)
        return int.from_bytes(fh.read(4), "little")


def _starts_with_solid(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(512).lstrip().lower().startswith(b"solid")


def stl_open(path: Path, *, workdir: Path, max_triangles: int = DEFAULT_MAX_TRIANGLES) -> Mesh:
    """The mesh of the STL at `path`, validated (StlError otherwise). ASCII is converted under `workdir`."""
    path = Path(path)
    size = os.path.getsize(path)
    count = _binary_count(path, size)
    if count is not None and size == HEADER_BYTES + 50 * count:
        if count == 0:
            raise StlError("The STL file has no triangles.")
        if count > max_triangles:
            raise StlError(f"The STL file has {count:,} triangles; the limit is {max_triangles:,}.")
        mesh = Mesh("stl-binary", path, count)
    elif _starts_with_solid(path):
        try:
            binary = _ascii_to_binary(path, workdir / "ascii.stl", max_triangles=max_triangles)
        except StlError as exc:
            if count is not None and size > HEADER_BYTES:
                # Could have been a damaged binary file with a "solid" header: say both.
                raise StlError(f"{exc} (and as binary STL: {_size_mismatch(count, size)})") from None
            raise
        converted = _binary_count(binary, os.path.getsize(binary))
        assert converted is not None  # the converter always writes the header and the count
        mesh = Mesh("stl-ascii", binary, converted)
    elif count is None:
        raise StlError(f"The file is too short to be an STL ({size} bytes).")
    else:
        raise StlError(f"Not a valid STL file: {_size_mismatch(count, size)}.")
    _check_coordinates(mesh)
    return mesh


def _size_mismatch(count: int, size: int) -> str:
    expected = HEADER_BYTES + 50 * count
    if expected > size:
        return f"the header declares {count:,} triangles ({expected:,} bytes) but the file has {size:,} bytes"
    return f"{size - expected:,} bytes after the {count:,} triangles the header declares"


def _check_coordinates(mesh: Mesh) -> None:
    for start, tri in mesh.chunks():
        finite = np.isfinite(tri)
        if not finite.all():
            bad = start + int(np.flatnonzero(~finite.all(axis=(1, 2)))[0])
            raise StlError(f"Triangle {bad + 1} has a coordinate that is not a number (NaN or infinite).")
        if np.abs(tri).max() > MAX_ABS_COORDINATE:
            raise StlError(f"Coordinates beyond {MAX_ABS_COORDINATE:g} mm: not a printable model.")


class BinaryStlWriter:
    """Triangles appended a chunk at a time to a binary STL at `path` (the other formats' conversion:
    3MF and OBJ are read into one, then measured, rendered and converted as an STL is)."""

    def __init__(self, path: Path, *, max_triangles: int, what: str):
        self.path, self.max_triangles, self.what = path, max_triangles, what
        self.count = 0
        self._out = open(path, "wb")
        self._out.write(b"Thingyard: converted".ljust(80, b"\0") + b"\0\0\0\0")

    def add(self, triangles: np.ndarray) -> None:
        """(k, 3, 3) vertices; normals are left 0 (every reader here computes its own)."""
        if self.count + len(triangles) > self.max_triangles:
            raise StlError(f"The {self.what} has more than {self.max_triangles:,} triangles (the limit).")
        records = np.zeros(len(triangles), dtype=RECORD)
        records["v"] = triangles
        self._out.write(records.tobytes())
        self.count += len(triangles)

    def close(self, fmt: str) -> Mesh:
        """The finished file as a validated Mesh of format `fmt`."""
        self._out.seek(80)
        self._out.write(self.count.to_bytes(4, "little"))
        self._out.close()
        if self.count == 0:
            raise StlError(f"The {self.what} has no triangles.")
        mesh = Mesh(fmt, self.path, self.count)
        _check_coordinates(mesh)
        return mesh

    def discard(self) -> None:
        self._out.close()


# --- ASCII ------------------------------------------------------------------------------------------


ASCII_PIECE = 8 << 20  # bytes of text tokenized at once: ~1.5M tokens, a few tens of MB of arrays
_FACET = [b"facet", b"normal", None, None, None, b"outer", b"loop"] + [b"vertex", None, None, None] * 3 + [
    b"endloop", b"endfacet"]
_FACET_KEYWORDS = [(i, word) for i, word in enumerate(_FACET) if word is not None]
_FACET_NUMBERS = [i for i, word in enumerate(_FACET) if word is None]  # normal, then 3 × vertex
_CONVERTED_HEADER = b"Thingyard: converted from ASCII STL".ljust(80, b"\0") + b"\0\0\0\0"


def _ascii_to_binary(src: Path, dst: Path, *, max_triangles: int) -> Path:
    """Parse ASCII STL into a binary STL at `dst`: vectorized when the file is regular, else line by line
    (which also words the error of a file that is not an STL)."""
    if _ascii_to_binary_fast(src, dst, max_triangles=max_triangles):
        return dst
    return _ascii_to_binary_lines(src, dst, max_triangles=max_triangles)


def _facets(tokens: list[bytes]) -> np.ndarray | None:
    """(n, 12) float64 (normal, three vertices) of tokens that are n regular facets, or None.

    Column by column with list slices (C loops): keywords by count, numbers by float()."""
    width = len(_FACET)
    if len(tokens) % width:
        return None
    n = len(tokens) // width
    for column, word in _FACET_KEYWORDS:
        if tokens[column::width].count(word) != n:
            return None
    try:
        return np.array([list(map(float, tokens[column::width])) for column in _FACET_NUMBERS]).T
    except ValueError:
        return None


def _solid_lines(piece: bytes):
    """(start, end, opening) of each `solid …` / `endsolid …` line of `piece` (whole lines, lower case)."""
    at = 0
    while (hit := piece.find(b"solid", at)) >= 0:
        line_start = piece.rfind(b"\n", 0, hit) + 1
        line_end = piece.find(b"\n", hit)
        line_end = len(piece) if line_end < 0 else line_end
        before = piece[line_start:hit].lstrip(b" \t\r\f\v")
        after = piece[hit + 5: hit + 6]
        if before in (b"", b"end") and (after == b"" or after.isspace()):
            yield line_start, line_end, before == b""
            at = line_end
        else:
            at = hit + 5


def _ascii_to_binary_fast(src: Path, dst: Path, *, max_triangles: int) -> bool:
    """The vectorized reading of a regular ASCII STL (whole lines of `solid`/`endsolid` around facets of
    21 tokens each; any case, any whitespace). False as soon as something is irregular: the caller then
    parses line by line. Limits as the line parser: line length, NUL bytes, the triangle count."""
    count = 0
    in_solid = False
    seen_solid = False
    with open(src, "rb") as fh, open(dst, "wb") as out:
        out.write(_CONVERTED_HEADER)
        carry = b""
        while True:
            block = fh.read(ASCII_PIECE)
            data = carry + block.lower()
            if not data:
                break
            if block:  # cut after the last complete facet or solid line; the rest waits for more
                end = max(data.rfind(b"endfacet"), data.rfind(b"endsolid"))
                newline = data.find(b"\n", end) if end >= 0 else -1
                if newline < 0:
                    if len(data) > 2 * ASCII_PIECE:
                        return False
                    carry = data
                    continue
                piece, carry = data[: newline + 1], data[newline + 1:]
            else:
                piece, carry = data, b""
            if b"\0" in piece:
                return False
            newlines = np.flatnonzero(np.frombuffer(piece, dtype=np.uint8) == 10)
            if np.diff(newlines, prepend=-1, append=len(piece)).max() > ASCII_MAX_LINE:
                return False
            at = 0
            for match in [*_solid_lines(piece), None]:
                segment = piece[at: match[0] if match else len(piece)]
                tokens = segment.split()
                if tokens:
                    if not in_solid:
                        return False
                    facets = _facets(tokens)
                    if facets is None:
                        return False
                    count += len(facets)
                    if count > max_triangles:
                        raise StlError(f"The STL file has more than {max_triangles:,} triangles (the limit).")
                    records = np.zeros(len(facets), dtype=RECORD)
                    records["normal"] = facets[:, :3]
                    records["v"] = facets[:, 3:].reshape(-1, 3, 3)
                    out.write(records.tobytes())
                if match is None:
                    break
                opening = match[2]
                if opening == in_solid:
                    return False
                in_solid, seen_solid, at = opening, True, match[1]
        if not seen_solid:
            return False
        if count == 0:
            raise StlError("The STL file has no triangles.")
        out.seek(80)
        out.write(count.to_bytes(4, "little"))
    return True


def _ascii_to_binary_lines(src: Path, dst: Path, *, max_triangles: int) -> Path:
    """Parse ASCII STL line by line into a binary STL at `dst` (written in chunks; bounded memory)."""
    buffer = np.zeros(CHUNK, dtype=RECORD)
    filled = 0
    count = 0
    state = "solid"  # what the next line may be
    vertices: list[float] = []
    normal: list[float] = []
    line_no = 0

    def fail(message: str) -> NoReturn:
        raise StlError(f"ASCII STL line {line_no}: {message}.")

    def numbers(parts: list[bytes], what: str) -> list[float]:
        if len(parts) != 3:
            fail(f"expected three numbers after '{what}'")
        try:
            return [float(p) for p in parts]
        except ValueError:
            fail(f"'{b' '.join(parts).decode(errors='replace')[:40]}' is not three numbers")

    with open(src, "rb") as fh, open(dst, "wb") as out:
        out.write(_CONVERTED_HEADER)
        while True:
            raw = fh.readline(ASCII_MAX_LINE + 1)
            if not raw:
                break
            line_no += 1
            if len(raw) > ASCII_MAX_LINE:
                fail(f"line longer than {ASCII_MAX_LINE} bytes")
            if b"\0" in raw:
                fail("binary data in an ASCII STL")
            parts = raw.split()
            if not parts:
                continue
            word = parts[0].lower()
            if state == "solid":
                if word != b"solid":
                    fail("expected 'solid'")
                state = "facet"
            elif state == "facet":
                if word == b"endsolid":
                    state = "solid"  # several solids in one file are allowed
                elif word == b"facet":
                    if len(parts) != 5 or parts[1].lower() != b"normal":
                        fail("expected 'facet normal nx ny nz'")
                    normal = numbers(parts[2:], "facet normal")
                    state = "outer"
                else:
                    fail("expected 'facet' or 'endsolid'")
            elif state == "outer":
                if word != b"outer" or len(parts) != 2 or parts[1].lower() != b"loop":
                    fail("expected 'outer loop'")
                vertices = []
                state = "vertex"
            elif state == "vertex":
                if word == b"endloop":
                    if len(vertices) != 9:
                        fail(f"a facet has {len(vertices) // 3} vertices, not 3")
                    state = "endfacet"
                elif word == b"vertex":
                    if len(vertices) == 9:
                        fail("a facet has more than 3 vertices")
                    vertices += numbers(parts[1:], "vertex")
                else:
                    fail("expected 'vertex' or 'endloop'")
            elif state == "endfacet":
                if word != b"endfacet":
                    fail("expected 'endfacet'")
                count += 1
                if count > max_triangles:
                    raise StlError(f"The STL file has more than {max_triangles:,} triangles (the limit).")
                buffer[filled] = (normal, np.reshape(vertices, (3, 3)), 0)
                filled += 1
                if filled == CHUNK:
                    out.write(buffer.tobytes())
                    filled = 0
                state = "facet"
        if state not in ("solid", "facet") or line_no == 0:
            fail("unexpected end of file")
        if count == 0:
            raise StlError("The STL file has no triangles.")
        out.write(buffer[:filled].tobytes())
        out.seek(80)
        out.write(count.to_bytes(4, "little"))
    return dst


# --- Geometry ---------------------------------------------------------------------------------------


def _bbox(mesh: Mesh) -> tuple[np.ndarray, np.ndarray]:
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for _, tri in mesh.chunks():
        lo = np.minimum(lo, tri.min(axis=(0, 1)))
        hi = np.maximum(hi, tri.max(axis=(0, 1)))
    return lo, hi


def stl_measure(mesh: Mesh) -> dict:
    """A file's `geometry`: format, triangles, bbox_mm, size_mm, volume_mm3, area_mm2, closed, units."""
    lo, hi = _bbox(mesh)
    centre = (lo + hi) / 2
    volume6 = 0.0
    area2 = 0.0
    for _, tri in mesh.chunks():
        # Relative to the centre: the signed tetrahedron sum is translation-invariant for a closed mesh,
        # and small numbers keep float64 precise for models far from the origin.
        a, b, c = tri[:, 0] - centre, tri[:, 1] - centre, tri[:, 2] - centre
        volume6 += float(np.einsum("ij,ij->", a, np.cross(b, c)))
        area2 += float(np.linalg.norm(np.cross(b - a, c - a), axis=1).sum())
    closed = mesh_is_closed(mesh, lo=lo, hi=hi)
    return {
        "format": mesh.format,
        "triangles": mesh.count,
        "bbox_mm": {axis: [round(float(lo[i]), 4), round(float(hi[i]), 4)] for i, axis in enumerate("xyz")},
        "size_mm": {axis: round(float(hi[i] - lo[i]), 4) for i, axis in enumerate("xyz")},
        # Only a closed mesh has a true volume; an open one still gets the sum (see `closed`).
        "volume_mm3": round(abs(volume6) / 6, 3),
        "area_mm2": round(area2 / 2, 3),
        "closed": closed,
        "units": "mm",
    }


def _vertex_keys(tri: np.ndarray, lo: np.ndarray, step: float) -> np.ndarray:
    """One uint64 per vertex: its cell on a grid of `step` mm (21 bits per axis)."""
    q = np.rint((tri.reshape(-1, 3) - lo) / step).astype(np.uint64)
    return (q[:, 0] << np.uint64(42)) | (q[:, 1] << np.uint64(21)) | q[:, 2]


def _distinct_sorted(keys: np.ndarray) -> np.ndarray:
    """The distinct values of `keys`, sorted (sorts `keys` in place). By sort and compare rather than
    np.unique, whose hash table (NumPy ≥ 2.3) costs several times the keys' own size at its peak."""
    if len(keys) < 2:
        return keys.copy()
    keys.sort()
    keep = np.empty(len(keys), dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


def _unique_vertex_keys(mesh: Mesh, lo: np.ndarray, step: float) -> np.ndarray:
    """Sorted distinct vertex keys, merged from per-chunk distinct keys (memory ~ distinct vertices).

    A merge holds the distinct set, the buffer, their concatenation and the result: about three
    times the distinct set at its peak, whatever the triangle count."""
    merged = np.empty(0, dtype=np.uint64)
    # One preallocated buffer, not a list of small arrays: freed small arrays fragment the heap and
    # the worker's RSS never comes down again.
    buffer = np.empty(min(3 * mesh.count, VERTEX_KEYS_BUFFER), dtype=np.uint64)
    filled = 0
    for _, tri in mesh.chunks():
        part = _distinct_sorted(_vertex_keys(tri, lo, step))
        if filled + len(part) > len(buffer):
            merged = _distinct_sorted(np.concatenate([merged, buffer[:filled]]))
            filled = 0
            if len(part) > len(buffer):
                merged = _distinct_sorted(np.concatenate([merged, part]))
                continue
        buffer[filled:filled + len(part)] = part
        filled += len(part)
    return _distinct_sorted(np.concatenate([merged, buffer[:filled]]))


def mesh_is_closed(mesh: Mesh, *, lo: np.ndarray, hi: np.ndarray) -> bool:
    """True when every edge is shared by exactly two triangles (watertight, manifold edges).

    Vertices are welded on a grid (WELD_MM, coarser for huge models so 21 bits per axis suffice) and
    numbered by binary search in their sorted distinct keys; each undirected edge becomes one int64
    (lo id × V + hi id). Edges are checked in passes, each taking the keys of one hash bucket
    (key mod passes) so at most ~EDGE_KEYS_PER_PASS keys are held: sort, then every run of equal keys
    must have length exactly 2. Memory: the distinct vertex keys (8 bytes each) plus one pass's keys,
    whatever the triangle count; a bigger mesh costs more passes over the mapped file, not more memory.
    """
    n = mesh.count
    if (3 * n) % 2:
        return False  # an odd number of edge slots cannot pair up
    step = max(WELD_MM, float((hi - lo).max()) / ((1 << 21) - 2))
    unique = _unique_vertex_keys(mesh, lo, step)
    vertex_count = np.int64(len(unique))
    passes = max(1, -(-3 * n // EDGE_KEYS_PER_PASS))
    edges = np.empty(min(3 * n, EDGE_KEYS_PER_PASS + EDGE_KEYS_PER_PASS // 4), dtype=np.int64)
    for bucket in range(passes):
        filled = 0
        for _, tri in mesh.chunks():
            ids = np.searchsorted(unique, _vertex_keys(tri, lo, step)).reshape(-1, 3).astype(np.int64)
            rolled = ids[:, [1, 2, 0]]
            keys = (np.minimum(ids, rolled) * vertex_count + np.maximum(ids, rolled)).ravel()
            if passes > 1:
                keys = keys[keys % passes == bucket]
            if filled + len(keys) > len(edges):  # a skewed bucket: grow (rare)
                edges = np.resize(edges, max(2 * len(edges), filled + len(keys)))
            edges[filled:filled + len(keys)] = keys
            filled += len(keys)
        edges_in_bucket = edges[:filled]
        edges_in_bucket.sort()
        if filled % 2 or not np.array_equal(edges_in_bucket[0::2], edges_in_bucket[1::2]):
            return False
        # ...and no key appears four (or six…) times: consecutive pairs differ.
        if not (edges_in_bucket[2::2] != edges_in_bucket[1:-1:2]).all():
            return False
    return True
