"""CI's last line: `N passed, N failed`, the sum of every run's JUnit report (pytest's, Schemathesis's and
the production smoke run's, scripts/production_smoke.py: one case per check).

    python scripts/ci_summary.py pytest=.run/pytest-junit.xml:0 'fuzz=.run/fuzz/junit*.xml:1' \
        smoke=.run/ci/production-smoke-junit.xml:0

Each argument is `name=report:exit status`; the report may be a glob pattern, and every report it matches
counts (the fuzz run writes one per Schemathesis run: junit.xml, junit-negative.xml). A run that exited
non-zero without a failing case in its reports (it crashed before writing one, or collected nothing)
counts as one failure, and so does a pattern that matches no report, so the line never reads `0 failed`
for a red run; .ci/run deletes old reports first. A run named with no report (`lint=:2`) is one check:
passed when its exit status is 0, failed otherwise. Skipped cases count as neither. Prints exactly one
line; the exit status is 1 when anything failed.
"""
from __future__ import annotations

import glob
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def counts(report: Path) -> tuple[int, int]:
    """(passed, failed) of a JUnit XML report: every <testsuite>, or the root when it is one."""
    root = ET.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    passed = failed = 0
    for suite in suites:
        tests = int(suite.get("tests", 0))
        bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped = int(suite.get("skipped", 0))
        passed += tests - bad - skipped
        failed += bad
    return passed, failed


def main(argv: list[str]) -> int:
    passed = failed = 0
    for arg in argv:
        _, _, rest = arg.partition("=")
        path, _, status = rest.rpartition(":")
        if not path:  # a step without a report (make lint): one check
            passed, failed = (passed + 1, failed) if int(status or 0) == 0 else (passed, failed + 1)
            continue
        reports = sorted(glob.glob(path)) if glob.has_magic(path) else [path]
        run_passed = run_failed = 0
        if not reports:
            run_failed = 1
        for report in reports:
            try:
                report_passed, report_failed = counts(Path(report))
            except (OSError, ET.ParseError):
                report_passed, report_failed = 0, 1
            run_passed += report_passed
            run_failed += report_failed
        if int(status or 0) != 0 and run_failed == 0:
            run_failed = 1  # red without a failing case in its report: still a failure
        passed += run_passed
        failed += run_failed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
