"""STL parsing and geometry (no store, no database): processing/stl.py on generated files."""
import struct
import time

import numpy as np
import pytest

from apps.uploads.processing.stl import StlError, stl_measure, stl_open
from apps.uploads.tests.processing.meshes import (
    ascii_stl, ascii_stl_fast, binary_stl, cube_triangles, sphere_triangles)


@pytest.fixture
def open_bytes(tmp_path):
    def run(data: bytes, **kwargs):
        path = tmp_path / "model.stl"
        path.write_bytes(data)
        return stl_open(path, workdir=tmp_path, **kwargs)

    return run


def test_binary_cube_measures_volume_area_bbox_and_is_closed(open_bytes):
    meta = stl_measure(open_bytes(binary_stl(cube_triangles(10.0, origin=(5, -3, 2)))))

    assert meta["format"] == "stl-binary"
    assert meta["triangles"] == 12
    assert meta["volume_mm3"] == pytest.approx(1000.0)
    assert meta["area_mm2"] == pytest.approx(600.0)
    assert meta["closed"] is True
    assert meta["bbox_mm"] == {"x": [5.0, 15.0], "y": [-3.0, 7.0], "z": [2.0, 12.0]}
    assert meta["size_mm"] == {"x": 10.0, "y": 10.0, "z": 10.0}
    assert meta["units"] == "mm"


def test_ascii_cube_measures_the_same_as_binary(open_bytes):
    meta = stl_measure(open_bytes(ascii_stl(cube_triangles(10.0))))

    assert meta["format"] == "stl-ascii"
    assert (meta["triangles"], meta["volume_mm3"], meta["closed"]) == (12, pytest.approx(1000.0), True)


def test_inside_out_cube_still_has_a_positive_volume(open_bytes):
    flipped = cube_triangles(10.0)[:, ::-1]

    assert stl_measure(open_bytes(binary_stl(flipped)))["volume_mm3"] == pytest.approx(1000.0)


def test_a_cube_missing_a_face_is_not_closed(open_bytes):
    meta = stl_measure(open_bytes(binary_stl(cube_triangles(10.0, drop=1))))

    assert (meta["triangles"], meta["closed"]) == (11, False)


def test_an_edge_shared_by_four_triangles_is_not_closed(open_bytes):
    # Two cubes touching along one edge: every edge has two triangles except the shared one (four).
    two = np.concatenate([cube_triangles(10.0), cube_triangles(10.0, origin=(10, 10, 0))])

    assert stl_measure(open_bytes(binary_stl(two)))["closed"] is False


def test_a_binary_file_whose_header_starts_with_solid_is_parsed_as_binary(open_bytes):
    mesh = open_bytes(binary_stl(cube_triangles(), header=b"solid cube exported by a CAD tool"))

    assert (mesh.format, mesh.count) == ("stl-binary", 12)


def test_a_truncated_binary_file_is_rejected(open_bytes):
    data = binary_stl(cube_triangles())[:-20]

    with pytest.raises(StlError, match="declares 12 triangles"):
        open_bytes(data)


def test_trailing_bytes_after_the_declared_triangles_are_rejected(open_bytes):
    with pytest.raises(StlError, match="bytes after the 12 triangles"):
        open_bytes(binary_stl(cube_triangles()) + b"junk")


def test_a_header_claiming_two_billion_triangles_is_rejected_without_reading_them(open_bytes):
    with pytest.raises(StlError, match="2,147,483,648 triangles"):
        open_bytes(binary_stl(cube_triangles(), count=2**31))


def test_more_triangles_than_the_limit_are_rejected(open_bytes):
    with pytest.raises(StlError, match="limit is 10"):
        open_bytes(binary_stl(cube_triangles()), max_triangles=10)


def test_ascii_with_more_triangles_than_the_limit_is_rejected(open_bytes):
    with pytest.raises(StlError, match="more than 10 triangles"):
        open_bytes(ascii_stl(cube_triangles()), max_triangles=10)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_coordinates_are_rejected(open_bytes, value):
    tris = cube_triangles()
    tris[3, 1, 2] = value

    with pytest.raises(StlError, match="Triangle 4 has a coordinate that is not a number"):
        open_bytes(binary_stl(tris))


def test_nan_in_ascii_is_rejected(open_bytes):
    data = ascii_stl(cube_triangles()).replace(b"vertex 0.000000e+00", b"vertex nan", 1)

    with pytest.raises(StlError, match="not a number"):
        open_bytes(data)


def test_absurd_coordinates_are_rejected(open_bytes):
    with pytest.raises(StlError, match="Coordinates beyond"):
        open_bytes(binary_stl(cube_triangles(1e30)))


@pytest.mark.parametrize(
    "data, message",
    [
        (b"solid x\nthis is not an stl\n", "line 2: expected 'facet' or 'endsolid'"),
        (b"solid x\nfacet normal 0 0 0\nouter loop\nvertex 1 2\n", "line 4: expected three numbers"),
        (b"solid x\nfacet normal 0 0 0\nouter loop\nvertex a b c\n", "line 4: 'a b c' is not three numbers"),
        (b"solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nendloop\n", "a facet has 1 vertices"),
        (b"solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\n", "unexpected end of file"),
        (b"solid x\nendsolid x\n", "no triangles"),
        (b"solid " + b"x" * 5000, "longer than 1024 bytes"),
    ],
)
def test_ascii_garbage_is_rejected_with_the_line(open_bytes, data, message):
    with pytest.raises(StlError, match=message):
        open_bytes(data)


def test_a_solid_header_binary_with_a_wrong_count_reports_both_readings(open_bytes):
    data = binary_stl(cube_triangles(), header=b"solid cube")[:-7]

    with pytest.raises(StlError, match=r"line 1: binary data .*and as binary STL: the header declares 12"):
        open_bytes(data)


def test_a_file_neither_binary_nor_ascii_is_rejected(open_bytes):
    with pytest.raises(StlError, match="too short"):
        open_bytes(b"PK\x03\x04 a zip file")


def test_an_empty_binary_stl_is_rejected(open_bytes):
    with pytest.raises(StlError, match="no triangles"):
        open_bytes(b"\0" * 80 + struct.pack("<I", 0))


def test_several_solids_in_one_ascii_file_are_read(open_bytes):
    data = ascii_stl(cube_triangles(10.0), "a") + ascii_stl(cube_triangles(10.0, origin=(20, 0, 0)), "b")
    meta = stl_measure(open_bytes(data))

    assert (meta["triangles"], meta["volume_mm3"], meta["closed"]) == (24, pytest.approx(2000.0), True)


@pytest.mark.parametrize("drop, closed", [(0, True), (2, False)])
def test_the_closed_check_gives_the_same_answer_in_several_passes(open_bytes, monkeypatch, drop, closed):
    from apps.uploads.processing import stl

    monkeypatch.setattr(stl, "EDGE_KEYS_PER_PASS", 7)  # 36 edge slots → 6 hash buckets
    two = np.concatenate([cube_triangles(10.0), cube_triangles(10.0, origin=(30, 0, 0), drop=drop)])

    assert stl_measure(open_bytes(binary_stl(two)))["closed"] is closed


def test_edges_shared_by_four_triangles_are_found_in_several_passes(open_bytes, monkeypatch):
    from apps.uploads.processing import stl

    monkeypatch.setattr(stl, "EDGE_KEYS_PER_PASS", 5)
    two = np.concatenate([cube_triangles(10.0), cube_triangles(10.0, origin=(10, 10, 0))])

    assert stl_measure(open_bytes(binary_stl(two)))["closed"] is False


# --- ASCII, vectorized (issue 22, finding 11) ------------------------------------------------------


def test_a_200k_facet_ascii_stl_is_read_by_the_vectorized_parser_well_within_the_time_limit(
        open_bytes, monkeypatch, settings):
    from apps.uploads.processing import stl

    tris = sphere_triangles(200_000)
    data = ascii_stl_fast(tris, fmt="%.7g")  # ~17 MB, as the file of the finding
    assert len(tris) >= 199_000 and len(data) > 15_000_000

    def line_parser(*args, **kwargs):
        raise AssertionError("the line-by-line parser ran")

    monkeypatch.setattr(stl, "_ascii_to_binary_lines", line_parser)
    started = time.monotonic()
    meta = stl_measure(open_bytes(data))
    elapsed = time.monotonic() - started

    assert (meta["format"], meta["triangles"]) == ("stl-ascii", len(tris))
    assert meta["size_mm"] == {"x": pytest.approx(80.0, abs=0.01), "y": pytest.approx(80.0, abs=0.01),
                               "z": pytest.approx(80.0)}
    # Measured about a second on an idle machine; the line parser took over 60 s on the attacker's stack.
    assert elapsed < settings.PROCESSING_TIME_LIMIT_SECONDS / 3


def test_the_vectorized_and_line_parsers_write_the_same_binary_for_irregular_spacing(tmp_path):
    from apps.uploads.processing import stl

    one = ascii_stl(cube_triangles(10.0), "first part")
    two = ascii_stl(cube_triangles(5.0, origin=(20, 0, 0)), "second").replace(b"\n", b"\r\n")
    data = one.upper().replace(b"  ", b"\t") + b"\n\n" + two.replace(b"endsolid second\r\n", b"")  # no endsolid
    (tmp_path / "in.stl").write_bytes(data)

    assert stl._ascii_to_binary_fast(tmp_path / "in.stl", tmp_path / "fast.stl", max_triangles=100)
    stl._ascii_to_binary_lines(tmp_path / "in.stl", tmp_path / "lines.stl", max_triangles=100)

    assert (tmp_path / "fast.stl").read_bytes() == (tmp_path / "lines.stl").read_bytes()
    assert stl.stl_open(tmp_path / "fast.stl", workdir=tmp_path).count == 24


@pytest.mark.parametrize("damage", [
    (b"outer loop", b"outer  loops"), (b"vertex 0.000000e+00", b"vertex zero"), (b"endfacet", b"end facet"),
])
def test_an_irregular_file_goes_to_the_line_parser_which_names_the_line(tmp_path, damage):
    from apps.uploads.processing import stl

    (tmp_path / "in.stl").write_bytes(ascii_stl(cube_triangles()).replace(damage[0], damage[1], 1))

    assert stl._ascii_to_binary_fast(tmp_path / "in.stl", tmp_path / "out.stl", max_triangles=100) is False
    with pytest.raises(StlError, match="ASCII STL line"):
        stl_open(tmp_path / "in.stl", workdir=tmp_path)
