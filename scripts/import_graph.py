"""Figures of the import graph between the rooms of the house (`make imports`).

A room is one app under apps/ (apps.things, apps.uploads …), plus bench/ and config/. The graph is built
by grimp, import-linter's own library, from the source files: every `import` counts, the ones inside
functions too. Test modules (`tests` packages) are left out: they may reach any room for fixtures.

The layer order is the one the import-linter contract `app-layers` in pyproject.toml declares (top
first), so the figures and `lint-imports` always judge by the same plan.

    python scripts/import_graph.py                 # this checkout
    python scripts/import_graph.py --root ../old   # another checkout, judged by this plan
    python scripts/import_graph.py --verbose       # also every arrow, with one import that makes it
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import grimp

HERE = Path(__file__).resolve().parent.parent
PACKAGES = ("apps", "bench", "config")
LAYERS_CONTRACT_ID = "app-layers"
CYCLE_COUNT_CAP = 100_000


def room_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "apps":
        return parts[1] if len(parts) > 1 else None
    return parts[0]


def is_test_module(module: str) -> bool:
    return "tests" in module.split(".") or module.rsplit(".", 1)[-1] == "conftest"


def layer_levels(pyproject: Path) -> dict[str, int]:
    """Room → level (0 is the top layer) from the import-linter contract `app-layers`."""
    config = tomllib.loads(pyproject.read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c.get("id") == LAYERS_CONTRACT_ID)
    levels: dict[str, int] = {}
    for level, layer in enumerate(contract["layers"]):
        for name in layer.replace(":", "|").split("|"):
            name = name.strip().strip("()")
            room = room_of(name)
            if room is not None:
                levels[room] = level
    return levels


def build_arrows(root: Path) -> tuple[dict[tuple[str, str], list[tuple[str, str]]], int]:
    sys.path.insert(0, str(root))
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    arrows: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    modules = 0
    for importer in sorted(graph.modules):
        if is_test_module(importer) or room_of(importer) is None:
            continue
        modules += 1
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if is_test_module(imported):
                continue
            a, b = room_of(importer), room_of(imported)
            if a is not None and b is not None and a != b:
                arrows[(a, b)].append((importer, imported))
    return arrows, modules


def strongly_connected(nodes: set[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the strongly connected components, each a list of rooms."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            components.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return components


def count_cycles(component: list[str], edges: dict[str, set[str]]) -> int:
    """Elementary cycles inside one component (each counted once, from its smallest room), capped."""
    count = 0
    members = sorted(component)
    for i, start in enumerate(members):
        allowed = set(members[i:])
        path = [start]
        on_path = {start}
        frames = [iter(sorted(edges.get(start, set()) & allowed))]
        while frames:
            nxt = next(frames[-1], None)
            if nxt is None:
                frames.pop()
                on_path.discard(path.pop())
                continue
            if nxt == start:
                count += 1
                if count >= CYCLE_COUNT_CAP:
                    return count
            elif nxt not in on_path:
                path.append(nxt)
                on_path.add(nxt)
                frames.append(iter(sorted(edges.get(nxt, set()) & allowed)))
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE, help="checkout to measure (default: this one)")
    parser.add_argument("--pyproject", type=Path, default=HERE / "pyproject.toml", help="where the layers are")
    parser.add_argument("--verbose", action="store_true", help="list every arrow with one import making it")
    args = parser.parse_args()

    levels = layer_levels(args.pyproject)
    arrows, modules = build_arrows(args.root.resolve())
    rooms = {room for pair in arrows for room in pair}
    edges: dict[str, set[str]] = defaultdict(set)
    for a, b in arrows:
        edges[a].add(b)

    up = sorted((a, b) for a, b in arrows if a in levels and b in levels and levels[a] > levels[b])
    sideways = sorted((a, b) for a, b in arrows if a in levels and b in levels and levels[a] == levels[b])
    unplaced = sorted(rooms - set(levels))
    mutual = sorted({tuple(sorted(pair)) for pair in arrows if (pair[1], pair[0]) in arrows})
    circles = [c for c in strongly_connected(rooms, edges) if len(c) > 1]
    cycles = sum(count_cycles(c, edges) for c in circles)

    def crossing(kind: str) -> int:
        return sum(1 for v in arrows.values() for _, imported in v if imported.rsplit(".", 1)[-1] == kind)

    print(f"Import graph of {', '.join(PACKAGES)} in {args.root.resolve()} (test modules left out)")
    print(f"  modules: {modules}; rooms: {len(rooms)} (every app, bench, config)")
    print(f"  arrows between rooms: {len(arrows)}")
    print(f"  arrows running back up the layer order: {len(up)}")
    print(f"  arrows between independent siblings of one layer: {len(sideways)}")
    print(f"  pairs of rooms importing each other: {len(mutual)}")
    print(f"  import circles spanning rooms (strongly connected groups): {len(circles)}"
          + (f", the largest of {max(map(len, circles))} rooms" if circles else ""))
    print(f"  elementary cycles between rooms: {cycles}" + (" (capped)" if cycles >= CYCLE_COUNT_CAP else ""))
    print(f"  imports of another room's models: {crossing('models')}; of its serializers: {crossing('serializers')}")
    if unplaced:
        print(f"  rooms outside the layer plan: {', '.join(unplaced)}")
    for label, pairs in (("back up", up), ("sideways", sideways)):
        for a, b in pairs:
            importer, imported = arrows[(a, b)][0]
            print(f"  {label}: {a} -> {b} ({len(arrows[(a, b)])} imports, e.g. {importer} -> {imported})")
    for circle in circles:
        print(f"  circle: {' <-> '.join(circle)}")
    for a, b in mutual:
        print(f"  each other: {a} <-> {b}")
    if args.verbose:
        for (a, b), imports in sorted(arrows.items()):
            print(f"  arrow {a} -> {b}: " + ", ".join(f"{i} -> {j}" for i, j in imports))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
