"""3MF: the zip a slicer saves (3MF core spec 1.3 and its production extension), read into a binary STL so
it is measured, rendered and previewed as an STL is (stl.py), plus what the file says about itself:
its objects (and plates, where the slicer wrote them) and its print settings.

What is read:
- the model part (the `_rels/.rels` start part, usually `3D/3dmodel.model`): `<object>`s with a
  `<mesh>` (vertices, triangles) or `<components>` (other objects, with transforms, possibly in other
  model parts: the production extension's `p:path`, as Bambu Studio and OrcaSlicer write them), the
  `<build>` items (the objects placed, with transforms) and the model's `unit`;
- `Metadata/model_settings.config` (Bambu Studio, OrcaSlicer: object names and plates) and
  `Metadata/Slic3r_PE_model.config` (PrusaSlicer: object names);
- the print settings: `Metadata/project_settings.config` (Bambu Studio, OrcaSlicer: JSON) or
  `Metadata/Slic3r_PE.config` (PrusaSlicer: `; key = value` lines).

Hostile input fails with StlError, before the work it would cost: a zip whose entries declare more
than MAX_PART_BYTES, MAX_TOTAL_BYTES in all, or a compression ratio beyond MAX_RATIO (a zip bomb) is
refused from its central directory, before any byte is inflated, and the bytes inflated are counted
again as they are read (a directory that lies is caught when the inflated data passes what it said).
XML is parsed by expat with every DOCTYPE refused (so no entity is ever declared, let alone expanded),
vertices and triangles are counted as they are read (MAX_VERTICES, max_triangles), and components nest
at most MAX_DEPTH deep with the triangles of all their instances counted before any is written.
"""
import json
import re
import zipfile
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

import numpy as np

from apps.uploads.processing.stl import BinaryStlWriter, Mesh, StlError

CORE = "http://schemas.microsoft.com/3dmanufacturing/core/2015/02"
DEFAULT_MODEL_PART = "3D/3dmodel.model"
MAX_ENTRIES = 10_000
MAX_PART_BYTES = 1 << 30  # one model part inflated (XML: ~60 bytes per vertex, ~45 per triangle)
MAX_TOTAL_BYTES = 2 << 30  # every part read, inflated
MAX_CONFIG_BYTES = 16 << 20  # one metadata file
MAX_RATIO = 200  # inflated / compressed; 3MF XML inflates 5–20×, a zip bomb 1000× and more
RATIO_FLOOR = 1 << 20  # parts smaller than this are not held to MAX_RATIO (tiny files compress oddly)
DEFAULT_MAX_VERTICES = 5_000_000
MAX_DEPTH = 16
MAX_OBJECTS_LISTED = 500
READ = 1 << 20
UNITS = {"micron": 0.001, "millimeter": 1.0, "centimeter": 10.0, "inch": 25.4, "foot": 304.8, "meter": 1000.0}
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


class ThreeMfError(StlError):
    pass


@dataclass
class _Object:
    name: str = ""
    vertices: np.ndarray | None = None
    triangles: np.ndarray | None = None
    components: list = field(default_factory=list)  # [(key, 4×4 matrix)]


@dataclass
class _Part:
    """What one model part holds."""
    objects: dict = field(default_factory=dict)  # (part path, id) -> _Object
    items: list = field(default_factory=list)  # [(key, 4×4 matrix)]
    unit: float = 1.0
    metadata: dict = field(default_factory=dict)


def _refuse_doctype(*args):
    raise ThreeMfError("The 3MF file's XML declares a DOCTYPE (entities are refused).")


def _xml_parser() -> expat.XMLParserType:
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.StartDoctypeDeclHandler = _refuse_doctype
    parser.EntityDeclHandler = _refuse_doctype
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    return parser


def _matrix(text: str | None) -> np.ndarray:
    """The 4×4 row-vector matrix of a 3MF transform ("m00 m01 m02 m10 … m32"), identity when absent."""
    m = np.eye(4)
    if text:
        values = text.split()
        if len(values) != 12 or not all(_NUMBER.fullmatch(v) for v in values):
            raise ThreeMfError(f"The 3MF file has a transform that is not 12 numbers: {text[:80]!r}.")
        m[:, :3] = np.array(values, dtype=np.float64).reshape(4, 3)
        if not np.isfinite(m).all():
            raise ThreeMfError("The 3MF file has a transform that is not finite.")
    return m


class _Archive:
    """The zip, its entries checked from the central directory before any is inflated."""

    def __init__(self, path: Path):
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise ThreeMfError(f"The 3MF file is not a valid zip archive ({exc}).") from None
        infos = self.zip.infolist()
        if len(infos) > MAX_ENTRIES:
            raise ThreeMfError(f"The 3MF file has {len(infos):,} entries; the limit is {MAX_ENTRIES:,}.")
        self.entries = {info.filename.lstrip("/"): info for info in infos}
        self.lower = {name.lower(): name for name in self.entries}
        self.inflated = 0

    def find(self, name: str) -> zipfile.ZipInfo | None:
        real = self.lower.get(name.lstrip("/").lower())
        return self.entries[real] if real else None

    def open(self, info: zipfile.ZipInfo, *, limit: int):
        """A reader of the entry that stops at its declared size and at the limits (ThreeMfError)."""
        if info.flag_bits & 0x1:
            raise ThreeMfError("The 3MF file has an encrypted entry.")
        if info.file_size > limit:
            raise ThreeMfError(f"The 3MF entry {info.filename} inflates to {info.file_size:,} bytes; "
                               f"the limit is {limit:,}.")
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise ThreeMfError(f"The 3MF entry {info.filename} inflates {info.file_size // max(info.compress_size, 1):,} "
                               f"times (a zip bomb); the limit is {MAX_RATIO}.")
        if self.inflated + info.file_size > MAX_TOTAL_BYTES:
            raise ThreeMfError(f"The 3MF file inflates to more than {MAX_TOTAL_BYTES:,} bytes.")
        self.inflated += info.file_size
        return _Counted(self.zip.open(info), info)

    def read(self, info: zipfile.ZipInfo, *, limit: int) -> bytes:
        with self.open(info, limit=limit) as fh:
            return fh.read()


class _Counted:
    """Never more bytes than the entry declared (zipfile stops there too; this does not rely on it)."""

    def __init__(self, fh, info: zipfile.ZipInfo):
        self.fh, self.info, self.left = fh, info, info.file_size

    def read(self, n: int = -1) -> bytes:
        want = READ if n is None or n < 0 else min(n, READ)
        data = self.fh.read(want if self.left > 0 else 1)
        self.left -= len(data)
        if self.left < 0:
            raise ThreeMfError(f"The 3MF entry {self.info.filename} inflates past the size it declares.")
        return data

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()

    def readall(self) -> bytes:
        chunks = []
        while data := self.read():
            chunks.append(data)
        return b"".join(chunks)


def _read_all(archive: _Archive, info: zipfile.ZipInfo, limit: int) -> bytes:
    try:
        with archive.open(info, limit=limit) as fh:
            return fh.readall()
    except (zipfile.BadZipFile, OSError, EOFError) as exc:  # CRC errors, bad deflate streams
        raise ThreeMfError(f"The 3MF entry {info.filename} is damaged ({exc}).") from None


class _ModelReader:
    """One model part read by expat callbacks into numpy arrays (array.array while it is read)."""

    def __init__(self, part: str, budget: dict):
        self.part, self.budget = part, budget
        self.result = _Part()
        self.current: _Object | None = None
        self.current_id = ""
        self.x, self.y, self.z = array("d"), array("d"), array("d")
        self.tri = array("q")
        self.meta_name: str | None = None
        self.meta_text: list[str] = []
        self.depth = 0

    def start(self, name: str, attrs: dict) -> None:
        local = name.rpartition(" ")[2]
        if local == "vertex":
            try:
                self.x.append(float(attrs["x"]))
                self.y.append(float(attrs["y"]))
                self.z.append(float(attrs["z"]))
            except (KeyError, ValueError):
                raise ThreeMfError(f"A vertex of object {self.current_id} is not three numbers.") from None
            self.budget["vertices"] += 1
            if self.budget["vertices"] > self.budget["max_vertices"]:
                raise ThreeMfError(f"The 3MF file has more than {self.budget['max_vertices']:,} vertices "
                                   "(the limit).")
        elif local == "triangle":
            try:
                self.tri.extend((int(attrs["v1"]), int(attrs["v2"]), int(attrs["v3"])))
            except (KeyError, ValueError):
                raise ThreeMfError(f"A triangle of object {self.current_id} is not three vertex indices.") from None
            self.budget["triangles"] += 1
            if self.budget["triangles"] > self.budget["max_triangles"]:
                raise ThreeMfError(f"The 3MF file has more than {self.budget['max_triangles']:,} triangles "
                                   "(the limit).")
        elif local == "object":
            self.current_id = attrs.get("id", "")
            self.current = _Object(name=attrs.get("name", "")[:200])
        elif local == "component" and self.current is not None:
            path = next((v for k, v in attrs.items() if k.rpartition(" ")[2] == "path"), None)
            part = path.lstrip("/") if path else self.part
            self.current.components.append(((part, attrs.get("objectid", "")), _matrix(attrs.get("transform"))))
        elif local == "item":
            path = next((v for k, v in attrs.items() if k.rpartition(" ")[2] == "path"), None)
            part = path.lstrip("/") if path else self.part
            self.result.items.append(((part, attrs.get("objectid", "")), _matrix(attrs.get("transform"))))
        elif local == "model":
            unit = attrs.get("unit", "millimeter")
            if unit not in UNITS:
                raise ThreeMfError(f"The 3MF model's unit {unit[:40]!r} is not one of {', '.join(UNITS)}.")
            self.result.unit = UNITS[unit]
        elif local == "metadata" and self.current is None:
            self.meta_name, self.meta_text = attrs.get("name", ""), []

    def text(self, data: str) -> None:
        if self.meta_name is not None and sum(map(len, self.meta_text)) < 1000:
            self.meta_text.append(data)

    def end(self, name: str) -> None:
        local = name.rpartition(" ")[2]
        if local == "object" and self.current is not None:
            obj = self.current
            if self.x:
                obj.vertices = np.column_stack([np.frombuffer(a, dtype=np.float64) for a in (self.x, self.y, self.z)])
                obj.triangles = np.frombuffer(self.tri, dtype=np.int64).reshape(-1, 3)
                if len(obj.triangles) and (obj.triangles.min() < 0 or obj.triangles.max() >= len(obj.vertices)):
                    raise ThreeMfError(f"Object {self.current_id} has a triangle with a vertex it does not have.")
            elif self.tri:
                raise ThreeMfError(f"Object {self.current_id} has triangles but no vertices.")
            self.result.objects[(self.part, self.current_id)] = obj
            self.current = None
            self.x, self.y, self.z, self.tri = array("d"), array("d"), array("d"), array("q")
        elif local == "metadata" and self.meta_name is not None:
            self.result.metadata[self.meta_name[:100]] = "".join(self.meta_text).strip()[:200]
            self.meta_name = None

    def parse(self, fh) -> _Part:
        parser = _xml_parser()
        parser.buffer_text = True
        parser.StartElementHandler = self.start
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.text
        try:
            parser.ParseFile(fh)
        except expat.ExpatError as exc:
            raise ThreeMfError(f"The 3MF part {self.part} is not well-formed XML ({exc}).") from None
        return self.result


def _model_part_name(archive: _Archive) -> str:
    rels = archive.find("_rels/.rels")
    if rels is not None:
        text = _read_all(archive, rels, MAX_CONFIG_BYTES).decode("utf-8", "replace")
        for match in re.finditer(r"<Relationship\b[^>]*>", text):
            tag = match.group(0)
            target = re.search(r'Target="([^"]+)"', tag)
            if "3dmodel" in tag and target:
                return target.group(1).lstrip("/")
    return DEFAULT_MODEL_PART


def _parse_part(archive: _Archive, name: str, budget: dict) -> _Part:
    info = archive.find(name)
    if info is None:
        raise ThreeMfError(f"The 3MF file has no model part {name} (is it a 3MF?).")
    try:
        with archive.open(info, limit=MAX_PART_BYTES) as fh:
            return _ModelReader(info.filename.lstrip("/"), budget).parse(fh)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ThreeMfError(f"The 3MF entry {info.filename} is damaged ({exc}).") from None


def _config_xml(archive: _Archive, name: str) -> list[tuple[str, dict, list]]:
    """A slicer's metadata XML as (element, attributes, path of enclosing elements) events, in order."""
    info = archive.find(name)
    if info is None:
        return []
    events: list[tuple[str, dict, list]] = []
    stack: list[str] = []
    parser = _xml_parser()

    def start(tag, attrs):
        events.append((tag, attrs, list(stack)))
        stack.append(tag)

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    try:
        parser.Parse(_read_all(archive, info, MAX_CONFIG_BYTES), True)
    except expat.ExpatError:
        return []  # unreadable slicer metadata is not the model's fault: the model is still shown
    return events


def _slicer_objects(archive: _Archive) -> tuple[dict, list]:
    """Object names by build object id, and plates [{id, name, objects}] (Bambu Studio/OrcaSlicer)."""
    names: dict[str, str] = {}
    plates: list[dict] = []
    for config in ("Metadata/model_settings.config", "Metadata/Slic3r_PE_model.config"):
        object_id = None
        for tag, attrs, stack in _config_xml(archive, config):
            if tag == "object":
                object_id = attrs.get("id")
            elif tag == "plate":
                plates.append({"id": len(plates) + 1, "name": "", "objects": []})
            elif tag == "metadata" and stack and stack[-1] == "object" and attrs.get("key") == "name":
                if object_id is not None:
                    names.setdefault(object_id, attrs.get("value", "")[:200])
            elif tag == "metadata" and stack and stack[-1] == "plate" and plates:
                if attrs.get("key") == "plater_id" and attrs.get("value", "").isdigit():
                    plates[-1]["id"] = int(attrs["value"])
                elif attrs.get("key") == "plater_name":
                    plates[-1]["name"] = attrs.get("value", "")[:200]
            elif tag == "metadata" and stack and stack[-1] == "model_instance" and plates:
                if attrs.get("key") == "object_id" and attrs.get("value"):
                    if attrs["value"] not in plates[-1]["objects"]:
                        plates[-1]["objects"].append(attrs["value"])
    return names, plates


def _number(value) -> float | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None:
        return None
    match = _NUMBER.match(str(value).strip())
    return float(match.group(0)) if match else None


def _first(value) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if v), None)
    if value is None:
        return None
    text = str(value).strip().strip('"')
    return text.split('";"')[0].split(";")[0].strip()[:200] or None


def _settings(archive: _Archive, metadata: dict) -> dict:
    """The print settings the file carries: {slicer, printer, material, filament, layer_height_mm,
    nozzle_mm, infill_percent, supports}, only those present."""
    values: dict = {}
    info = archive.find("Metadata/project_settings.config")
    if info is not None:  # Bambu Studio, OrcaSlicer: JSON
        try:
            data = json.loads(_read_all(archive, info, MAX_CONFIG_BYTES))
        except ValueError:
            data = None
        if isinstance(data, dict):
            values = {
                "printer": data.get("printer_model") or data.get("printer_settings_id"),
                "material": data.get("filament_type"),
                "filament": data.get("filament_settings_id"),
                "layer_height": data.get("layer_height"),
                "nozzle": data.get("nozzle_diameter"),
                "infill": data.get("sparse_infill_density"),
                "supports": data.get("enable_support"),
            }
    else:
        info = archive.find("Metadata/Slic3r_PE.config")
        if info is not None:  # PrusaSlicer: "; key = value" lines
            text = _read_all(archive, info, MAX_CONFIG_BYTES).decode("utf-8", "replace")
            pairs = dict(re.findall(r"(?m)^; (\w+) = (.*)$", text))
            values = {
                "printer": pairs.get("printer_model") or pairs.get("printer_settings_id"),
                "material": pairs.get("filament_type"),
                "filament": pairs.get("filament_settings_id"),
                "layer_height": pairs.get("layer_height"),
                "nozzle": pairs.get("nozzle_diameter", "").split(",")[0] or None,
                "infill": pairs.get("fill_density"),
                "supports": pairs.get("support_material"),
            }
    settings = {
        "slicer": _first(metadata.get("Application")),
        "printer": _first(values.get("printer")),
        "material": _first(values.get("material")),
        "filament": _first(values.get("filament")),
        "layer_height_mm": _number(values.get("layer_height")),
        "nozzle_mm": _number(values.get("nozzle")),
        "infill_percent": _number(values.get("infill")),
        "supports": None if _first(values.get("supports")) is None else _first(values.get("supports")) in ("1", "true"),
    }
    return {key: value for key, value in settings.items() if value is not None}


@dataclass
class ThreeMf:
    mesh: Mesh
    objects: list
    plates: list
    settings: dict


def threemf_open(path: Path, *, workdir: Path, max_triangles: int,
                 max_vertices: int = DEFAULT_MAX_VERTICES) -> ThreeMf:
    """The 3MF at `path` as a binary STL under `workdir` (every build item placed), with its objects,
    plates and print settings. ThreeMfError (an StlError) for anything it refuses."""
    archive = _Archive(Path(path))
    with archive.zip:
        budget = {"vertices": 0, "triangles": 0, "max_vertices": max_vertices, "max_triangles": max_triangles}
        main_name = _model_part_name(archive)
        main = _parse_part(archive, main_name, budget)
        parts = {main_name: main}
        objects = dict(main.objects)
        pending = [key for obj in main.objects.values() for key, _ in obj.components] + [k for k, _ in main.items]
        while pending:  # the production extension: components in other model parts
            part_name = pending.pop()[0]
            if part_name in parts:
                continue
            if len(parts) > 1000:
                raise ThreeMfError("The 3MF file has more than 1,000 model parts.")
            part = parts[part_name] = _parse_part(archive, part_name, budget)
            objects.update(part.objects)
            pending += [key for obj in part.objects.values() for key, _ in obj.components]
        names, plates = _slicer_objects(archive)
        settings = _settings(archive, main.metadata)

        items = main.items
        if not items:  # no build: every object no other object uses
            used = {key for obj in objects.values() for key, _ in obj.components}
            items = [(key, np.eye(4)) for key in objects if key not in used]
        counts: dict = {}

        def triangles_of(key, depth=0) -> int:
            if depth > MAX_DEPTH:
                raise ThreeMfError(f"The 3MF file nests components more than {MAX_DEPTH} deep (or in a cycle).")
            if key not in counts:
                obj = objects.get(key)
                if obj is None:
                    raise ThreeMfError(f"The 3MF file refers to object {key[1][:40]!r}, which it does not define.")
                own = 0 if obj.triangles is None else len(obj.triangles)
                counts[key] = own + sum(triangles_of(child, depth + 1) for child, _ in obj.components)
            return counts[key]

        total = sum(triangles_of(key) for key, _ in items)
        if total > max_triangles:
            raise ThreeMfError(f"The 3MF file places {total:,} triangles; the limit is {max_triangles:,}.")

        writer = BinaryStlWriter(workdir / "3mf.stl", max_triangles=max_triangles, what="3MF file")
        listed: list[dict] = []
        try:
            for key, matrix in items:
                lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
                stack = [(key, matrix)]
                while stack:
                    current, m = stack.pop()
                    obj = objects[current]
                    if obj.triangles is not None and len(obj.triangles):
                        placed = (obj.vertices @ m[:3, :3] + m[3, :3]) * parts[current[0]].unit
                        lo, hi = np.minimum(lo, placed.min(axis=0)), np.maximum(hi, placed.max(axis=0))
                        for start in range(0, len(obj.triangles), 1 << 16):
                            writer.add(placed[obj.triangles[start:start + (1 << 16)]])
                    stack += [(child, cm @ m) for child, cm in obj.components]
                if len(listed) < MAX_OBJECTS_LISTED:
                    entry = {"id": key[1], "name": names.get(key[1]) or objects[key].name,
                             "triangles": counts[key]}
                    if np.isfinite(lo).all():
                        entry["bbox_mm"] = {axis: [round(float(lo[i]), 4), round(float(hi[i]), 4)]
                                            for i, axis in enumerate("xyz")}
                    plate = next((p["id"] for p in plates if key[1] in p["objects"]), None)
                    if plate is not None:
                        entry["plate"] = plate
                    listed.append(entry)
        except BaseException:
            writer.discard()
            raise
        mesh = writer.close("3mf")
    return ThreeMf(mesh=mesh, objects=listed, plates=plates, settings=settings)
