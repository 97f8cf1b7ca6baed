"""An import-linter contract type for what the standard ones cannot say: "another app's".

`own_rooms` (pyproject.toml, [tool.importlinter]): across two rooms (apps), a module named in `private`
(views, pages, urls, tasks, admin …, at any depth: apps.uploads.files.views too) is never imported, and
from a module named in `guarded` (serializers) only the names listed in `shared` are. Inside one app
everything stays allowed; the layers contracts order that.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import cast

import grimp
from importlinter import Contract, ContractCheck, fields, output
from importlinter.application import contract_utils
from importlinter.domain import helpers


def _room(module: str, rooms: set[str]) -> str | None:
    for room in rooms:
        if module == room or module.startswith(room + "."):
            return room
    return None


def _imported_names(importer: str, imported: str) -> list[str] | None:
    """The names `importer` takes from `imported` (`from imported import a, b`); None for a plain
    `import imported` or a module attribute use, which takes everything."""
    base = Path.cwd().joinpath(*importer.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    names: list[str] = []
    plain = False
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module == imported and node.level == 0:
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and imported.startswith(node.module + "."):
            if any(f"{node.module}.{alias.name}" == imported for alias in node.names):
                plain = True  # `from apps.x import serializers`: the whole module
        elif isinstance(node, ast.Import) and any(alias.name == imported for alias in node.names):
            plain = True
    return None if plain else names


class OwnRoomsContract(Contract):
    type_name = "own_rooms"

    rooms = fields.ListField(subfield=fields.ModuleExpressionField())
    private = fields.ListField(subfield=fields.StringField())
    guarded = fields.ListField(subfield=fields.StringField(), required=False)
    shared = fields.ListField(subfield=fields.StringField(), required=False)
    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    unmatched_ignore_imports_alerting = fields.EnumField(
        contract_utils.AlertLevel, default=contract_utils.AlertLevel.ERROR
    )

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        removal = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=self.ignore_imports,  # type: ignore[arg-type]
            unmatched_alerting=self.unmatched_ignore_imports_alerting,  # type: ignore[arg-type]
        )
        rooms = {m.name for m in helpers.module_expressions_to_modules(graph, self.rooms)}  # type: ignore[arg-type]
        # The fields hold the parsed values once the contract is built (import-linter's own contracts
        # read them the same way).
        private = set(cast(list[str], self.private))
        guarded = set(cast(list[str], self.guarded or []))
        shared = set(cast(list[str], self.shared or []))
        broken: list[str] = []
        for importer in sorted(graph.modules):
            importer_room = _room(importer, rooms)
            if importer_room is None:
                continue
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                imported_room = _room(imported, rooms)
                if imported_room is None or imported_room == importer_room:
                    continue
                tails = set(imported[len(imported_room) + 1 :].split("."))
                lines = ", ".join(
                    str(d["line_number"]) for d in graph.get_import_details(importer=importer, imported=imported)
                )
                if tails & private:
                    broken.append(f"{importer} -> {imported} (l.{lines}): another app's {' '.join(tails & private)}")
                elif tails & guarded:
                    names = _imported_names(importer, imported)
                    if names is None:
                        broken.append(f"{importer} -> {imported} (l.{lines}): the whole module")
                    for name in names or ():
                        if f"{imported}.{name}" not in shared:
                            broken.append(f"{importer} -> {imported}.{name} (l.{lines}): not listed in `shared`")
        return ContractCheck(
            kept=not broken,
            warnings=list(removal.warnings),
            ignored_import_count=removal.ignored_import_count,
            metadata={"broken": broken},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["broken"]:
            output.print_error(f"- {line}", bold=False)
            output.new_line()
