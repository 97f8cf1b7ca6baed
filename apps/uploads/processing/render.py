"""Thumbnail of a mesh: an isometric-ish orthographic view, flat shading, painter's algorithm (Pillow).

No GPU and no 3D library: triangles are projected with numpy, sorted far to near and filled with
ImageDraw polygons at twice the size, then downsampled (antialiasing). Memory is bounded: a first pass
keeps one float32 depth per triangle (plus the int64 order), then triangles are gathered from the
memory map chunk by chunk in depth order. Time is bounded: past MAX_DRAWN triangles an even stride of
MAX_DRAWN is drawn, each with a 1-pixel outline; at that density the triangles are smaller than a
pixel, so the outlines close the gaps the skipped ones leave (drawing only the largest leaves holes
wherever a model's triangles get small).
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


def _view_rotation() -> np.ndarray:
    """World (z up) → view (x right, y up, z towards the viewer): yaw 45°, then tilt 30° down."""
    yaw, tilt = np.radians(-45.0), np.radians(60.0)
    rz = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]])
    return rx @ rz


def _drawn(mesh: Mesh) -> np.ndarray:
    """Indices of the triangles to draw: all of them, or an even stride of MAX_DRAWN."""
    if mesh.count <= MAX_DRAWN:
        return np.arange(mesh.count)
    return np.linspace(0, mesh.count - 1, MAX_DRAWN).astype(np.int64)


def _shaded(view: np.ndarray) -> np.ndarray:
    """uint8 RGB per triangle (view-space vertices (k, 3, 3)): ambient + |normal · light| + a highlight."""
    normals = np.cross(view[:, 1] - view[:, 0], view[:, 2] - view[:, 0])
    lengths = np.linalg.norm(normals, axis=1)
    np.divide(normals, lengths[:, None], out=normals, where=lengths[:, None] > 0)
    # abs(): many STLs have inconsistent winding; a face lit from behind still reads as a face.
    shade = AMBIENT + (1 - AMBIENT) * np.abs(normals @ (LIGHT / np.linalg.norm(LIGHT)))
    lit = BASE_COLOUR[None, :] * shade[:, None] + 40 * shade[:, None] ** 8
    return np.clip(lit, 0, 255).astype(np.uint8)


def render_thumbnail(mesh: Mesh, out: Path, *, size: tuple[int, int] = THUMBNAIL_SIZE) -> Path:
    """Write a PNG picture of the mesh, `size` pixels, to `out`."""
    rotation = _view_rotation().T.astype(np.float32)
    chosen = _drawn(mesh)
    # Pass 1: depth of each drawn triangle and the projected extent.
    depth = np.empty(len(chosen), dtype=np.float32)
    lo, hi = np.full(2, np.inf), np.full(2, -np.inf)
    for start in range(0, len(chosen), DRAW_CHUNK):
        view = np.asarray(mesh.triangles[chosen[start:start + DRAW_CHUNK]], dtype=np.float32) @ rotation
        depth[start:start + len(view)] = view[:, :, 2].mean(axis=1)
        lo = np.minimum(lo, view[:, :, :2].reshape(-1, 2).min(axis=0))
        hi = np.maximum(hi, view[:, :, :2].reshape(-1, 2).max(axis=0))
    order = chosen[np.argsort(depth, kind="stable")]  # far (small z) first
    del depth, chosen

    width, height = size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE
    image = Image.new("RGB", (width, height), BACKGROUND)
    span = np.maximum(hi - lo, 1e-9)
    scale = min(width * (1 - 2 * MARGIN) / span[0], height * (1 - 2 * MARGIN) / span[1])
    centre = (lo + hi) / 2
    outline = mesh.count > MAX_DRAWN
    draw = ImageDraw.Draw(image)
    # Pass 2: gather, shade and draw in depth order, a chunk at a time.
    for start in range(0, len(order), DRAW_CHUNK):
        batch = np.sort(order[start:start + DRAW_CHUNK])  # file order for the memory map...
        view = np.asarray(mesh.triangles[batch], dtype=np.float32) @ rotation
        view = view[np.argsort(view[:, :, 2].mean(axis=1), kind="stable")]  # ...then depth order again
        colours = _shaded(view).tolist()
        px = np.empty(view.shape[:2] + (2,), dtype=np.float32)
        px[..., 0] = width / 2 + (view[..., 0] - centre[0]) * scale
        px[..., 1] = height / 2 - (view[..., 1] - centre[1]) * scale  # image y grows downwards
        for points, colour in zip(px.reshape(-1, 6).tolist(), colours):
            colour = tuple(colour)
            draw.polygon(points, fill=colour, outline=colour if outline else None)
    image = image.resize(size, Image.Resampling.LANCZOS)
    image.save(out, "PNG", optimize=True)
    return out


def render_downscaled(render: Path, out: Path, *, size: tuple[int, int] = THUMBNAIL_SIZE) -> Path:
    """The file's thumbnail (`size`, PNG) from its larger render: one drawing of the mesh for both."""
    with Image.open(render) as image:
        image.resize(size, Image.Resampling.LANCZOS).save(out, "PNG", optimize=True)
    return out
