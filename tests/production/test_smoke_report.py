"""scripts/production_smoke.py's report: one JUnit case per check, counted by scripts/ci_summary.py (CI's
last line), so a failed smoke check is a failure in `N passed, N failed`. The smoke run itself is CI's own
step (.ci/run); these tests cover its bookkeeping and the mesh it uploads, without starting a service."""
import importlib.util
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def smoke():
    return _load("production_smoke")


def test_failed_checks_are_reported_and_counted_by_the_ci_summary(smoke, tmp_path, capsys):
    results = smoke.Results()

    def broken():
        smoke.expect(False, "the page lacks the Thing")

    assert results.run("readiness healthy", lambda: None) is True
    assert results.run("the Thing page", broken) is None
    assert results.run("crashes", lambda: 1 / 0) is None
    out = capsys.readouterr().out
    assert "PASS readiness healthy" in out
    assert "FAIL the Thing page: the page lacks the Thing" in out
    assert "FAIL crashes: ZeroDivisionError" in out
    report = tmp_path / "smoke.xml"
    results.junit(report)
    assert _load("ci_summary").main([f"smoke={report}:1"]) == 1
    assert capsys.readouterr().out == "1 passed, 2 failed\n"


def test_forms_are_read_as_a_browser_would_send_them(smoke):
    page = smoke.parse(
        '<form id="f" action="/new"><input type="hidden" name="csrfmiddlewaretoken" value="t">'
        '<input name="name" value=""><select name="license"><option value="cc">CC</option>'
        '<option value="gpl" selected>GPL</option></select><input type="checkbox" name="is_wip">'
        '<input type="radio" name="kind" value="a"><input type="radio" name="kind" value="b" checked></form>'
        '<code class="copybox-value" id="client-id">abc123</code>'
    )
    assert page.forms == [{"id": "f", "action": "/new", "fields": {
        "csrfmiddlewaretoken": "t", "name": "", "license": "gpl", "kind": "b"}}]
    assert page.codes == {"client-id": "abc123"}


def test_the_uploaded_mesh_is_a_closed_binary_stl(smoke):
    data = smoke.tetrahedron_stl()
    (count,) = struct.unpack_from("<I", data, 80)
    assert count == 4 and len(data) == 84 + 50 * count
    edges: dict = {}
    for i in range(count):
        floats = struct.unpack_from("<12f", data, 84 + 50 * i)
        corners = [floats[3:6], floats[6:9], floats[9:12]]
        for a, b in zip(corners, corners[1:] + corners[:1]):
            edges[frozenset((a, b))] = edges.get(frozenset((a, b)), 0) + 1
    assert set(edges.values()) == {2}  # every edge shared by two triangles: closed
