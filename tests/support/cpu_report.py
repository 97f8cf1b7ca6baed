"""An opt-in pytest plugin: the CPU seconds each test cost its worker (issue 23: CI in half the time).

    .venv/bin/pytest -p tests.support.cpu_report -n 4 --dist loadgroup
    CPU_REPORT=.run/cpu.tsv .venv/bin/pytest -p tests.support.cpu_report …

Per test (setup, call and teardown together): the process's user+system seconds and its reaped children's
(the quick start's and the fault stack's subprocesses), beside the wall seconds. Each xdist worker appends
its rows to CPU_REPORT (default .run/cpu-report.tsv, emptied by the controller first), with the worker and
the start time (a timeline of the run: which tests ran last, where a worker waited); the controller
prints the 30 heaviest. The database server's CPU is not in it (another process's). Wall time alone, the
JUnit report's, hides which tests are heavy on a loaded 2-core machine: a test waiting for a server looks
as long as one that computes.
"""
from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest

_started: dict[str, tuple[float, float, float]] = {}


def _path(config) -> Path:
    return Path(os.environ.get("CPU_REPORT") or Path(str(config.rootpath)) / ".run" / "cpu-report.tsv")


def _now() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime, time.monotonic())


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        path = _path(config)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("cpu_s\tchildren_cpu_s\twall_s\tworker\tstarted\tnodeid\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    started = time.time()  # wall-clock, so the workers' rows line up into one timeline
    before = _now()
    yield
    after = _now()
    worker = getattr(item.config, "workerinput", {}).get("workerid", "-")
    # The node id last, escaped (a parameter may hold a tab or a line break).
    nodeid = item.nodeid.encode("unicode_escape").decode("ascii")
    with open(_path(item.config), "a") as report:
        report.write(
            f"{after[0] - before[0]:.3f}\t{after[1] - before[1]:.3f}\t{after[2] - before[2]:.3f}\t{worker}"
            f"\t{started:.3f}\t{nodeid}\n"
        )


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    rows: list[tuple[float, float, float, float, str]] = []
    for line in _path(config).read_text().splitlines()[1:]:
        own_s, children_s, wall_s, _worker, _started, name = line.split("\t", 5)
        rows.append((float(own_s) + float(children_s), float(own_s), float(children_s), float(wall_s), name))
    rows.sort(reverse=True)
    terminalreporter.section(f"CPU seconds per test (the heaviest 30 of {len(rows)}; all in {_path(config)})")
    total = sum(row[0] for row in rows)
    terminalreporter.write_line(f"total {total:.0f} CPU-s in tests (own + children), outside collection")
    for total_s, cpu, children, wall, nodeid in rows[:30]:
        terminalreporter.write_line(f"{total_s:7.2f} (own {cpu:6.2f}, children {children:6.2f}, wall {wall:6.2f})  {nodeid}")
