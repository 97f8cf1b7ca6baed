"""Thumbnail of a mesh: an isometric-ish orthographic view, flat shading, painter's algorithm (Pillow).

No GPU and no 3D library: triangles are projected with numpy, sorted far to near and filled with
ImageDraw polygons at twice the size, then downsampled (antialiasing).

Memory is bounded by a fraction of the triangle count, and the file is only read sequentially
(stl.Mesh.chunks). Two cheap passes find the projected extent and the depth distribution, which cuts
the depth range into DEPTH_SLABS slabs of about equal triangle counts; then, far slab first, one pass
per slab gathers that slab's triangles (depth, colour, corners in 1/16-pixel fixed point: ~30 bytes
each with their order) and draws them far to near. Every triangle of a farther slab lies behind every
triangle of a nearer one, so the drawing order is the same as one global sort's, for 1/DEPTH_SLABS of
its memory (issue 17: the whole-mesh order and gather cost ~40 MB for a million triangles).

Time is bounded: past MAX_DRAWN triangles an even stride of MAX_DRAWN is drawn, each with a 1-pixel
outline; at that density the triangles are smaller than a pixel, so the outlines close the gaps the
skipped ones leave (drawing only the largest leaves holes wherever a model's triangles get small).
"""
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from apps.uploads.processing.stl import Mesh

THUMBNAIL_SIZE = (400, 300)
# The render that becomes one of the Thing's images (DECISIONS.md: Thing images): the image sizes are
# made from it, so it is as large as the display size they show (display medium, 800×600).
RENDER_SIZE = (800, 600)
SUPERSAMPLE = 2
MAX_DRAWN = 1_000_000
MARGIN = 0.08  # of the image, on each side
BACKGROUND = (255, 255, 255)
BASE_COLOUR = np.array([64, 140, 220], dtype=np.float32)  # the model's colour, lit
LIGHT = np.array([-0.4, 0.5, 0.75], dtype=np.float32)  # in view space: from the upper left, to the viewer
AMBIENT = 0.35
DRAW_CHUNK = 20_000
SUBPIXEL = 16  # corners kept in 1/16 of a (supersampled) pixel: uint16 holds 4096 pixels
DEPTH_SLABS = 8
DEPTH_BINS = 4096  # resolution of the depth histogram the slab boundaries are cut from


def _view_rotation() -> np.ndarray:
    """World (z up) → view (x right, y up, z towards the viewer): yaw 45°, then tilt 30° down."""
    yaw, tilt = np.radians(-45.0), np.radians(60.0)
    rz = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]])
    return rx @ rz


def _drawn_in(count: int, start: int, k: int) -> np.ndarray:
    """Offsets within triangles start…start+k of those drawn: all of them, or, past MAX_DRAWN, the
    even stride floor(j × (count − 1) / (MAX_DRAWN − 1)), j = 0…MAX_DRAWN − 1 (exact integers)."""
    if count <= MAX_DRAWN:
        return np.arange(k)
    span, last = count - 1, MAX_DRAWN - 1
    first_j = -(-start * last // span)  # the smallest j whose index is >= start
    end_j = min(-(-(start + k) * last // span), MAX_DRAWN)
    return np.arange(first_j, end_j, dtype=np.int64) * span // last - start


def _views(mesh: Mesh, rotation: np.ndarray):
    """View-space vertices (k, 3, 3) float32 of the drawn triangles, a chunk at a time."""
    for start, tri in mesh.chunks(DRAW_CHUNK, dtype=np.float32):
        view = tri[_drawn_in(mesh.count, start, len(tri))] @ rotation
        if len(view):
            yield view


def _shaded(view: np.ndarray) -> np.ndarray:
    """uint8 RGB per triangle (view-space vertices (k, 3, 3)): ambient + |normal · light| + a highlight."""
    normals = np.cross(view[:, 1] - view[:, 0], view[:, 2] - view[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    np.divide(normals, lengths[:, None], out=normals, where=lengths[:, None] > 0)
    # abs(): many STLs have inconsistent winding; a face lit from behind still reads as a face.
    shade = AMBIENT + (1 - AMBIENT) * np.abs(normals @ (LIGHT / np.linalg.norm(LIGHT)))
    lit = BASE_COLOUR[None, :] * shade[:, None] + 40 * shade[:, None] ** 8
    return np.clip(lit, 0, 255).astype(np.uint8)


def _slab_edges(mesh: Mesh, rotation: np.ndarray, z_lo: float, z_hi: float) -> np.ndarray:
    """DEPTH_SLABS + 1 increasing depth bounds, each slab holding about as many triangles."""
    edges = np.linspace(z_lo, z_hi, DEPTH_BINS + 1)
    histogram = np.zeros(DEPTH_BINS, dtype=np.int64)
    for view in _views(mesh, rotation):
        histogram += np.histogram(view[:, :, 2].mean(axis=1), bins=edges)[0]
    cumulative = np.cumsum(histogram)
    wanted = cumulative[-1] * np.arange(1, DEPTH_SLABS) / DEPTH_SLABS
    inner = edges[1:][np.searchsorted(cumulative, wanted)]
    return np.concatenate([[-np.inf], np.unique(inner), [np.inf]])


def render_thumbnail(mesh: Mesh, out: Path, *, size: tuple[int, int] = THUMBNAIL_SIZE) -> Path:
    """Write a PNG picture of the mesh, `size` pixels, to `out`."""
    rotation = _view_rotation().T.astype(np.float32)
    # Pass 1: the projected extent and the depth range of the drawn triangles.
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    for view in _views(mesh, rotation):
        lo = np.minimum(lo, view.reshape(-1, 3).min(axis=0))
        hi = np.maximum(hi, view.reshape(-1, 3).max(axis=0))
    # Pass 2: where to cut the depth range.
    slabs = _slab_edges(mesh, rotation, float(lo[2]), float(hi[2]))

    width, height = size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE
    span = np.maximum(hi[:2] - lo[:2], 1e-9)
    scale = min(width * (1 - 2 * MARGIN) / span[0], height * (1 - 2 * MARGIN) / span[1])
    centre = (lo[:2] + hi[:2]) / 2
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    outline = mesh.count > MAX_DRAWN
    # One pass per slab, far (small z) first: gather, sort by depth, draw.
    for near_edge, far_edge in zip(slabs[1:], slabs[:-1]):
        depths, colours, corners = [], [], []
        for view in _views(mesh, rotation):
            depth = view[:, :, 2].mean(axis=1)
            inside = (depth >= far_edge) & (depth < near_edge)
            if not inside.any():
                continue
            view = view[inside]
            px = np.empty(view.shape[:2] + (2,), dtype=np.float32)
            px[..., 0] = width / 2 + (view[..., 0] - centre[0]) * scale
            px[..., 1] = height / 2 - (view[..., 1] - centre[1]) * scale  # image y grows downwards
            depths.append(depth[inside])
            colours.append(_shaded(view))
            corners.append(np.rint(np.clip(px, 0, max(width, height)) * SUBPIXEL).astype(np.uint16))
        if not depths:
            continue
        depth, colour, corner = np.concatenate(depths), np.concatenate(colours), np.concatenate(corners)
        del depths, colours, corners
        order = np.argsort(depth, kind="stable")
        for start in range(0, len(order), DRAW_CHUNK):
            batch = order[start:start + DRAW_CHUNK]
            points = (corner[batch].reshape(-1, 6).astype(np.float32) / SUBPIXEL).tolist()
            for xy, fill in zip(points, map(tuple, colour[batch].tolist())):
                draw.polygon(xy, fill=fill, outline=fill if outline else None)
    image = image.resize(size, Image.Resampling.LANCZOS)
    image.save(out, "PNG", optimize=True)
    return out


def render_downscaled(render: Path, out: Path, *, size: tuple[int, int] = THUMBNAIL_SIZE) -> Path:
    """The file's thumbnail (`size`, PNG) from its larger render: one drawing of the mesh for both."""
    with Image.open(render) as image:
        image.resize(size, Image.Resampling.LANCZOS).save(out, "PNG", optimize=True)
    return out
