"""Thumbnail and three.js output of a mesh (no store, no database)."""
import json

import numpy as np
import pytest
from PIL import Image

from apps.uploads.processing import render
from apps.uploads.processing.stl import stl_open
from apps.uploads.processing.threejs import threejs_write
from apps.uploads.tests.processing.meshes import binary_stl, cube_triangles


@pytest.fixture
def cube(tmp_path):
    path = tmp_path / "cube.stl"
    path.write_bytes(binary_stl(np.concatenate([cube_triangles(10.0), cube_triangles(4.0, origin=(12, 0, 0))])))
    return stl_open(path, workdir=tmp_path)


def _model_pixels(path) -> int:
    with Image.open(path) as image:
        assert (image.format, image.size) == ("PNG", (400, 300))
        return sum(1 for pixel in image.convert("RGB").getdata() if pixel != render.BACKGROUND)


def test_the_thumbnail_is_a_400_by_300_png_showing_the_model(cube, tmp_path):
    render.render_thumbnail(cube, tmp_path / "thumb.png")

    assert _model_pixels(tmp_path / "thumb.png") > 400 * 300 // 5


def test_past_the_drawing_limit_an_even_sample_is_drawn(cube, tmp_path, monkeypatch):
    monkeypatch.setattr(render, "MAX_DRAWN", 12)

    render.render_thumbnail(cube, tmp_path / "thumb.png")

    assert _model_pixels(tmp_path / "thumb.png") > 400 * 300 // 10


def test_threejs_json_has_nine_position_and_normal_floats_per_triangle(cube, tmp_path):
    threejs_write(cube, tmp_path / "three.json")

    geometry = json.loads((tmp_path / "three.json").read_text())
    attributes = geometry["data"]["attributes"]
    assert geometry["metadata"]["type"] == "BufferGeometry"
    assert len(attributes["position"]["array"]) == len(attributes["normal"]["array"]) == 9 * 24
    normals = np.reshape(attributes["normal"]["array"], (-1, 3))
    assert np.allclose(np.linalg.norm(normals, axis=1), 1.0)
