"""Issue 24 / issue 22 #4: writes to Things happen in the services, never beside them.

Bulk writes (`QuerySet.update()`, `bulk_update`, `bulk_create`, `delete()`, raw SQL updating the table)
on the Things table are allowed only in service modules (`services.py` of an app or sub-app, the Things'
counters, the version bump of apps.things.bodycache). The cached read path does not depend on it (the
database's trigger moves a Thing's version on every UPDATE, whoever sends it: migration things.0010),
but the domain's side effects do (search rows, webhook events, the admin's messages): the admin's
Feature action was such an UPDATE beside the services' hooks (#4). Adding one elsewhere fails here.

Issue 24 extends it to every table a cached answer shows of a Thing (its tags, category, likes and
watches, files and images), and to the cache's invalidation: services emit the one change event
(apps.things.changes.thing_changed) and only the cache (apps.things.bodycache) listens; nothing else
moves versions or calls the listener."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
ALLOWED = {"apps/things/counters.py", "apps/things/bodycache.py"}
BULK = {"update", "bulk_update", "bulk_create", "delete", "raw", "update_or_create"}


def _allowed(relative: str) -> bool:
    return relative in ALLOWED or relative.endswith("/services.py")


# The models whose rows a Thing's cached answers show (a body, a short form, a kept page).
SHOWN = {"Thing", "ThingTag", "Tag", "Category", "Like", "Watch", "ThingFile", "Image"}
# The cache's invalidation: only the change event's own module and its listener name these.
INVALIDATION = re.compile(r"thing_changed_receive|(?<!\w)_bump\(|thing_body_changed")
INVALIDATION_HOME = {"apps/things/bodycache.py", "apps/things/changes.py"}


def _on_things(node: ast.AST) -> bool:
    """Whether a call chain starts at `<Shown model>.objects` (Thing.objects.filter(...).update(...))."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            if node.attr == "objects" and isinstance(node.value, ast.Name) and node.value.id in SHOWN:
                return True
            node = node.value
        else:
            return False


def _violations() -> list[str]:
    found = []
    for path in sorted((ROOT / "apps").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if "/tests/" in relative or "/migrations/" in relative:
            continue
        source = path.read_text()
        if relative not in INVALIDATION_HOME:
            found += [f"{relative}: calls the cache's invalidation ({m.group(0)}); emit apps.things.changes' event"
                      for m in INVALIDATION.finditer(source)]
        if _allowed(relative):
            continue
        if re.search(r"UPDATE things_thing\b", source) or "UPDATE {_THING}" in source:
            found.append(f"{relative}: raw UPDATE of things_thing")
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in BULK
                    and _on_things(node.func.value)):
                found.append(f"{relative}:{node.lineno}: <shown model>.objects….{node.func.attr}()")
    return found


def test_bulk_writes_to_things_stay_in_the_services():
    assert _violations() == []


def test_the_lint_sees_a_bulk_write(tmp_path):
    tree = ast.parse("Thing.objects.filter(pk=1).update(is_featured=True)")
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "update")
    assert isinstance(call.func, ast.Attribute)
    assert _on_things(call.func.value)
    tree = ast.parse("Image.objects.filter(thing_id=1).delete()")
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "delete")
    assert isinstance(call.func, ast.Attribute) and _on_things(call.func.value)
