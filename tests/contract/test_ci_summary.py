"""scripts/ci_summary.py: CI's last line counts every JUnit report, the fuzz run's two included."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def summary():
    spec = importlib.util.spec_from_file_location("ci_summary", ROOT / "scripts" / "ci_summary.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _junit(path: Path, *, tests: int, failures: int = 0, errors: int = 0, skipped: int = 0) -> None:
    path.write_text(
        f'<testsuites><testsuite name="s" tests="{tests}" failures="{failures}" errors="{errors}" '
        f'skipped="{skipped}"/></testsuites>'
    )


def test_every_report_a_pattern_matches_is_counted(summary, tmp_path, capsys):
    _junit(tmp_path / "pytest.xml", tests=10, skipped=1)
    _junit(tmp_path / "junit.xml", tests=131)
    _junit(tmp_path / "junit-negative.xml", tests=131, failures=2)
    status = summary.main([f"pytest={tmp_path}/pytest.xml:0", f"fuzz={tmp_path}/junit*.xml:1"])
    assert capsys.readouterr().out == "269 passed, 2 failed\n"
    assert status == 1


def test_a_pattern_matching_no_report_is_a_failure(summary, tmp_path, capsys):
    _junit(tmp_path / "pytest.xml", tests=3)
    assert summary.main([f"pytest={tmp_path}/pytest.xml:0", f"fuzz={tmp_path}/junit*.xml:0"]) == 1
    assert capsys.readouterr().out == "3 passed, 1 failed\n"


def test_a_red_run_without_a_failing_case_still_counts_one(summary, tmp_path, capsys):
    _junit(tmp_path / "junit.xml", tests=5)
    assert summary.main([f"fuzz={tmp_path}/junit*.xml:2"]) == 1
    assert capsys.readouterr().out == "5 passed, 1 failed\n"


def test_a_step_without_a_report_is_one_check(summary, tmp_path, capsys):
    """make lint writes no report: a red lint must not leave the line at `0 failed`."""
    _junit(tmp_path / "pytest.xml", tests=4)
    assert summary.main(["lint=:2", f"pytest={tmp_path}/pytest.xml:0"]) == 1
    assert capsys.readouterr().out == "4 passed, 1 failed\n"
    assert summary.main(["lint=:0", f"pytest={tmp_path}/pytest.xml:0"]) == 0
    assert capsys.readouterr().out == "5 passed, 0 failed\n"
