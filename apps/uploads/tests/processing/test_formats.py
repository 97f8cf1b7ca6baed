"""3MF and OBJ read into meshes (processing/threemf.py, processing/obj.py): no store, no database."""
import io
import json
import time
import zipfile

import numpy as np
import pytest

from apps.uploads.processing import obj, threemf
from apps.uploads.processing.stl import StlError, stl_measure
from apps.uploads.tests.processing.meshes import (
    CUBE_FACES, CUBE_VERTICES, cube_3mf, cube_obj, mesh_object, model_xml, threemf_zip)

LIMITS = {"max_triangles": 5_000_000, "max_vertices": 5_000_000}


@pytest.fixture
def open_3mf(tmp_path):
    def run(data: bytes, **kwargs):
        path = tmp_path / "model.3mf"
        path.write_bytes(data)
        return threemf.threemf_open(path, workdir=tmp_path, **{**LIMITS, **kwargs})

    return run


@pytest.fixture
def open_obj(tmp_path):
    def run(data: bytes, **kwargs):
        path = tmp_path / "model.obj"
        path.write_bytes(data)
        return obj.obj_open(path, workdir=tmp_path, **{**LIMITS, **kwargs})

    return run


# --- 3MF ----------------------------------------------------------------------------------------------


def test_a_3mf_cube_measures_as_the_stl_cube(open_3mf):
    model = open_3mf(cube_3mf(10.0))
    meta = stl_measure(model.mesh)

    assert (meta["format"], meta["triangles"], meta["closed"]) == ("3mf", 12, True)
    assert meta["volume_mm3"] == pytest.approx(1000.0)
    assert meta["bbox_mm"] == {"x": [0.0, 10.0], "y": [0.0, 10.0], "z": [0.0, 10.0]}
    assert model.objects == [{"id": "1", "name": "cube", "triangles": 12,
                              "bbox_mm": {"x": [0.0, 10.0], "y": [0.0, 10.0], "z": [0.0, 10.0]}}]
    assert (model.plates, model.settings) == ([], {})


def test_build_items_components_transforms_and_parts_of_the_production_extension(open_3mf):
    # Object 1 (a 10 mm cube) lives in another part; object 2 uses it twice, the second moved 20 mm in x;
    # the build places object 2 moved 100 mm in y, and a 5 mm cube (object 3) scaled ×2.
    part = model_xml(mesh_object(1, 10.0, name="unit"), "")
    assembly = ('<object id="2" name="pair" type="model"><components>'
                '<component p:path="/3D/Objects/unit.model" objectid="1"/>'
                '<component p:path="/3D/Objects/unit.model" objectid="1" transform="1 0 0 0 1 0 0 0 1 20 0 0"/>'
                "</components></object>")
    main = model_xml(assembly + mesh_object(3, 5.0, name="small"),
                     '<item objectid="2" transform="1 0 0 0 1 0 0 0 1 0 100 0"/>'
                     '<item objectid="3" transform="2 0 0 0 2 0 0 0 2 -50 0 0"/>')
    model = open_3mf(threemf_zip(main, files={"3D/Objects/unit.model": part}))
    meta = stl_measure(model.mesh)

    assert meta["triangles"] == 36
    assert meta["volume_mm3"] == pytest.approx(3000.0)
    assert meta["bbox_mm"] == {"x": [-50.0, 30.0], "y": [0.0, 110.0], "z": [0.0, 10.0]}
    assert [(o["id"], o["name"], o["triangles"]) for o in model.objects] == [("2", "pair", 24), ("3", "small", 12)]
    assert model.objects[0]["bbox_mm"] == {"x": [0.0, 30.0], "y": [100.0, 110.0], "z": [0.0, 10.0]}
    assert model.objects[1]["bbox_mm"] == {"x": [-50.0, -40.0], "y": [0.0, 10.0], "z": [0.0, 10.0]}


def test_the_model_unit_is_converted_to_millimetres(open_3mf):
    data = threemf_zip(model_xml(mesh_object(1, 1.0), '<item objectid="1"/>', unit="centimeter"))

    assert stl_measure(open_3mf(data).mesh)["size_mm"] == {"x": 10.0, "y": 10.0, "z": 10.0}


def test_bambu_plates_object_names_and_project_settings(open_3mf):
    model_settings = ('<?xml version="1.0" encoding="UTF-8"?><config>'
                      '<object id="1"><metadata key="name" value="Bracket"/><part id="1" subtype="normal_part">'
                      '<metadata key="name" value="body"/></part></object>'
                      '<object id="2"><metadata key="name" value="Clip"/></object>'
                      '<plate><metadata key="plater_id" value="1"/><metadata key="plater_name" value="Main"/>'
                      '<model_instance><metadata key="object_id" value="1"/></model_instance></plate>'
                      '<plate><metadata key="plater_id" value="2"/><metadata key="plater_name" value=""/>'
                      '<model_instance><metadata key="object_id" value="2"/></model_instance></plate></config>')
    project = {"printer_model": "Bambu Lab P1S", "printer_settings_id": "Bambu Lab P1S 0.4 nozzle",
               "filament_type": ["PETG", "PLA"], "filament_settings_id": ["Bambu PETG HF @BBL P1S"],
               "layer_height": "0.16", "nozzle_diameter": ["0.4"], "sparse_infill_density": "25%",
               "enable_support": "1"}
    main = model_xml(mesh_object(1, 10.0, name="1") + mesh_object(2, 5.0, name="2"),
                     '<item objectid="1"/><item objectid="2" transform="1 0 0 0 1 0 0 0 1 30 0 0"/>',
                     metadata='<metadata name="Application">BambuStudio-01.09.07.52</metadata>')
    model = open_3mf(threemf_zip(main, files={"Metadata/model_settings.config": model_settings,
                                              "Metadata/project_settings.config": json.dumps(project)}))

    assert [(o["name"], o["plate"]) for o in model.objects] == [("Bracket", 1), ("Clip", 2)]
    assert model.plates == [{"id": 1, "name": "Main", "objects": ["1"]}, {"id": 2, "name": "", "objects": ["2"]}]
    assert model.settings == {"slicer": "BambuStudio-01.09.07.52", "printer": "Bambu Lab P1S", "material": "PETG",
                              "filament": "Bambu PETG HF @BBL P1S", "layer_height_mm": 0.16, "nozzle_mm": 0.4,
                              "infill_percent": 25.0, "supports": True}


def test_prusaslicer_settings(open_3mf):
    config = ("; generated by PrusaSlicer 2.8.1\n; layer_height = 0.2\n; filament_type = PLA;PETG\n"
              '; filament_settings_id = "Prusament PLA";"Prusament PETG"\n; printer_model = MK4S\n'
              "; nozzle_diameter = 0.6,0.6\n; fill_density = 15%\n; support_material = 0\n")
    names = ('<?xml version="1.0" encoding="UTF-8"?><config><object id="1" instances_count="1">'
             '<metadata type="object" key="name" value="Gear.stl"/></object></config>')
    data = threemf_zip(model_xml(mesh_object(1), '<item objectid="1"/>'),
                       files={"Metadata/Slic3r_PE.config": config, "Metadata/Slic3r_PE_model.config": names})
    model = open_3mf(data)

    assert model.objects[0]["name"] == "Gear.stl"
    assert model.settings == {"printer": "MK4S", "material": "PLA", "filament": "Prusament PLA",
                              "layer_height_mm": 0.2, "nozzle_mm": 0.6, "infill_percent": 15.0, "supports": False}


def test_a_zip_bomb_is_refused_from_the_directory_before_it_is_inflated(open_3mf, monkeypatch):
    bomb = threemf_zip(model_xml(mesh_object(1), '<item objectid="1"/>'),
                       files={"Metadata/Slic3r_PE.config": b"\0" * (12 << 20)})  # under the size limit
    assert len(bomb) < 50_000
    inflated = []
    real_read = threemf._Counted.read
    def counted_read(self, n=-1):
        inflated.append(self.info.filename)
        return real_read(self, n)

    monkeypatch.setattr(threemf._Counted, "read", counted_read)

    with pytest.raises(StlError, match=r"Slic3r_PE.config inflates [\d,]+ times \(a zip bomb\)"):
        open_3mf(bomb)
    assert "Metadata/Slic3r_PE.config" not in inflated  # refused before its first byte was inflated


def test_a_model_part_larger_than_the_limit_is_refused(open_3mf, monkeypatch):
    monkeypatch.setattr(threemf, "MAX_PART_BYTES", 1000)

    with pytest.raises(StlError, match=r"3D/3dmodel.model inflates to [\d,]+ bytes; the limit is 1,000"):
        open_3mf(cube_3mf())


def test_an_entry_inflating_past_its_declared_size_is_refused(open_3mf):
    data = bytearray(threemf_zip(model_xml(mesh_object(1), '<item objectid="1"/>'), compression=zipfile.ZIP_STORED))
    # Lower the model part's declared sizes in its central directory entry (offsets 20 and 24 of the
    # 46-byte header): a directory that lies about what the entry inflates to.
    at = data.rfind(b"PK\x01\x02", 0, data.rfind(b"3D/3dmodel.model"))
    real = int.from_bytes(data[at + 24:at + 28], "little")
    data[at + 20:at + 28] = (real // 2).to_bytes(4, "little") * 2

    with pytest.raises(StlError, match="3dmodel.model"):
        open_3mf(bytes(data))


def test_xml_entities_are_refused(open_3mf):
    laughs = ('<!DOCTYPE model [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
              '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>')
    data = threemf_zip(model_xml(mesh_object(1, name="&lol3;"), '<item objectid="1"/>', head=laughs))

    with pytest.raises(StlError, match="DOCTYPE"):
        open_3mf(data)


def test_an_external_entity_is_refused(open_3mf):
    xxe = '<!DOCTYPE model [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
    data = threemf_zip(model_xml(mesh_object(1, name="&secret;"), '<item objectid="1"/>', head=xxe))

    with pytest.raises(StlError, match="DOCTYPE"):
        open_3mf(data)


def test_too_many_vertices_or_triangles_are_refused_while_read(open_3mf):
    with pytest.raises(StlError, match="more than 7 vertices"):
        open_3mf(cube_3mf(), max_vertices=7)
    with pytest.raises(StlError, match="more than 11 triangles"):
        open_3mf(cube_3mf(), max_triangles=11)


def test_many_instances_of_one_mesh_are_counted_before_any_is_written(open_3mf, monkeypatch):
    # 10 components × 10 components × a 12-triangle mesh = 1,200 triangles placed from 12 read.
    tens = "".join(f'<component objectid="{{0}}" transform="1 0 0 0 1 0 0 0 1 {20 * i} 0 0"/>' for i in range(10))
    objects = (mesh_object(1) + f'<object id="2"><components>{tens.format(1)}</components></object>'
               f'<object id="3"><components>{tens.format(2)}</components></object>')
    written = []
    monkeypatch.setattr(threemf.BinaryStlWriter, "add", lambda self, t: written.append(len(t)))

    with pytest.raises(StlError, match="places 1,200 triangles; the limit is 1,000"):
        open_3mf(threemf_zip(model_xml(objects, '<item objectid="3"/>')), max_triangles=1000)
    assert written == []


def test_a_component_cycle_is_refused(open_3mf):
    objects = ('<object id="1"><components><component objectid="2"/></components></object>'
               '<object id="2"><components><component objectid="1"/></components></object>')

    with pytest.raises(StlError, match="more than 16 deep"):
        open_3mf(threemf_zip(model_xml(objects, '<item objectid="1"/>')))


@pytest.mark.parametrize("data, message", [
    (b"PK\x03\x04 not really a zip", "not a valid zip archive"),
    (threemf_zip("<model", files={}), "not well-formed XML"),
    (threemf_zip(model_xml(mesh_object(1, faces=np.array([[0, 1, 8]])), '<item objectid="1"/>')),
     "a vertex it does not have"),
    (threemf_zip(model_xml(mesh_object(1), '<item objectid="9"/>')), "object '9', which it does not define"),
    (threemf_zip(model_xml(mesh_object(1).replace('x="0"', 'x="zero"', 1), '<item objectid="1"/>')),
     "not three numbers"),
    (threemf_zip(model_xml(mesh_object(1), '<item objectid="1" transform="1 0 0"/>')), "not 12 numbers"),
    (threemf_zip(model_xml(mesh_object(1), '<item objectid="1"/>', unit="parsec")), "unit 'parsec'"),
    (threemf_zip(model_xml(mesh_object(1).replace('x="10"', 'x="1e20"', 1), '<item objectid="1"/>')),
     "Coordinates beyond"),
], ids=lambda value: value if isinstance(value, str) else "file")  # zips hold a timestamp: name cases by message
def test_broken_3mf_files_fail_with_a_clear_error(open_3mf, data, message):
    with pytest.raises(StlError, match=message):
        open_3mf(data)


def test_a_3mf_without_its_model_part_is_refused(open_3mf):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("hello.txt", "not a model")

    with pytest.raises(StlError, match="no model part 3D/3dmodel.model"):
        open_3mf(out.getvalue())


# --- OBJ ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"quads": True}, {"negative": True}])
def test_an_obj_cube_measures_as_the_stl_cube(open_obj, kwargs):
    mesh, objects = open_obj(cube_obj(10.0, **kwargs))
    meta = stl_measure(mesh)

    assert (meta["format"], meta["triangles"], meta["closed"]) == ("obj", 12, True)
    assert meta["volume_mm3"] == pytest.approx(1000.0)
    assert meta["bbox_mm"] == {"x": [0.0, 10.0], "y": [0.0, 10.0], "z": [0.0, 10.0]}
    assert objects == [{"name": "cube", "triangles": 12}]


def test_obj_objects_and_polygons_are_counted_across_pieces(open_obj, monkeypatch):
    monkeypatch.setattr(obj, "PIECE", 64)  # every piece a line or two: objects span pieces
    pentagon = "v 0 0 0\nv 10 0 0\nv 12 8 0\nv 5 12 0\nv -2 8 0\nf -5 -4 -3 -2 -1\n"
    data = (cube_obj(10.0, name="first").decode() + "o second\r\n" + pentagon + "\tf 1 2 3\n").encode()
    mesh, objects = open_obj(data)

    assert objects == [{"name": "first", "triangles": 12}, {"name": "second", "triangles": 4}]
    assert stl_measure(mesh)["triangles"] == 16


def test_a_large_obj_is_read_in_a_few_seconds(open_obj, settings):
    # 600,000 triangles (quads) on a 300 × 1000 grid of 301,301 vertices: ~1 s on an idle machine.
    n, m = 300, 1000
    x, y = np.meshgrid(np.arange(n + 1), np.arange(m + 1), indexing="ij")
    vertices = "".join("v %d %d 0\n" % p for p in zip(x.ravel().tolist(), y.ravel().tolist()))
    i, j = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    a = (i * (m + 1) + j + 1).ravel()
    faces = np.stack([a, a + m + 1, a + m + 2, a + 1], axis=1).tolist()
    text = vertices + "".join("f %d %d %d %d\n" % tuple(f) for f in faces)
    started = time.monotonic()
    mesh, _ = open_obj(text.encode())
    elapsed = time.monotonic() - started

    assert mesh.count == 2 * n * m
    assert elapsed < settings.PROCESSING_TIME_LIMIT_SECONDS / 3


def test_too_many_obj_vertices_or_triangles_are_refused(open_obj):
    with pytest.raises(StlError, match="more than 7 vertices"):
        open_obj(cube_obj(), max_vertices=7)
    with pytest.raises(StlError, match="more than 11 triangles"):
        open_obj(cube_obj(), max_triangles=11)


def test_millions_of_obj_vertices_are_refused_at_the_limit_without_reading_on(open_obj, monkeypatch):
    monkeypatch.setattr(obj, "PIECE", 1 << 16)
    data = b"v 1 2 3\n" * 2_000_000  # 16 MB, two million vertices
    reads = []
    real = obj._floats
    def counted_floats(lines):
        reads.append(len(lines))
        return real(lines)

    monkeypatch.setattr(obj, "_floats", counted_floats)

    with pytest.raises(StlError, match="more than 1,000,000 vertices"):
        open_obj(data, max_vertices=1_000_000)
    assert sum(reads) <= 1_000_000  # stopped at the limit, not after the file


@pytest.mark.parametrize("text, message", [
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "refers to vertex 4; the file has 3"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "fewer than three vertices"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "fewer than three vertices"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", "before the first one"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", "not a number"),
    ("v 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "vertex is not three numbers"),
    ("v 0 0 zero\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "not a number"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\n", "no triangles"),
    ("v 0 0 nan\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "not a number"),
    ("\0\0\0binary", "binary data"),
])
def test_broken_obj_files_fail_with_a_clear_error(open_obj, text, message):
    with pytest.raises(StlError, match=message):
        open_obj(text.encode())


def test_faces_may_refer_to_vertices_defined_after_them(open_obj):
    faces = "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in CUBE_FACES)
    vertices = "".join(f"v {x:g} {y:g} {z:g}\n" for x, y, z in CUBE_VERTICES * 10)
    mesh, objects = open_obj((faces + vertices).encode())

    assert (stl_measure(mesh)["volume_mm3"], objects) == (pytest.approx(1000.0), [])
