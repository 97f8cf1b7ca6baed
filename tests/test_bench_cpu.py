"""bench.cpu: the CPU a bench target costs is counted per process (the server's group, the database's
backends, Redis, wrk), so another program's load is not in it (issue 24)."""
import os
import shlex
import signal
import subprocess
import sys
import time

import pytest

from bench.cpu import CpuMeter, one_worker_idle
from bench.load import LoadResult

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass\n"


@pytest.mark.django_db
def test_the_meter_counts_the_server_groups_cpu_and_not_another_programs(tmp_path):
    from django.db import connection

    go, burnt = tmp_path / "go", tmp_path / "burnt"
    # The "server": a process group of its own that burns CPU when told to.
    script = (f"import os, time\nwhile not os.path.exists({str(go)!r}): time.sleep(0.02)\n{BURN}"
              f"open({str(burnt)!r}, 'w').close()\ntime.sleep(30)\n")
    server = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        meter = CpuMeter(server_pgid=server.pid, database=connection.settings_dict["NAME"], redis_pid=None)
        meter.start()
        go.touch()
        _wait_for(burnt)
        counted = meter.stop()
        meter.start()
        # The same work in another program (orphaned at once: not the bench's child, not the server's
        # group): not counted.
        done = tmp_path / "done"
        subprocess.run(["sh", "-c", f"({sys.executable} -c {shlex.quote(BURN)}; touch {done}) &"], check=True)
        _wait_for(done)
        ignored = meter.stop()
    finally:
        server.kill()
        server.wait()
    assert counted is not None and counted >= 0.35
    assert ignored is not None and ignored < 0.2


def test_requests_per_cpu_second():
    result = LoadResult(requests=500, seconds=5.0, p50_ms=1, p95_ms=2, p99_ms=3, cpu_seconds=0.25)
    assert result.per_cpu_second == 2000
    assert result.cpu_ms_per_request == 0.5
    assert LoadResult(requests=5, seconds=1, p50_ms=1, p95_ms=1, p99_ms=1).per_cpu_second == 0


def _wait_for(path) -> None:
    deadline = time.monotonic() + 20
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_a_run_that_left_a_worker_idle_is_told_apart_from_an_uneven_one():
    assert one_worker_idle({1: 4.1, 2: 0.01})  # every connection on worker 1
    assert not one_worker_idle({1: 4.1, 2: 1.6})  # three connections and one: both served
    assert not one_worker_idle({1: 2.9, 2: 3.1})
    assert not one_worker_idle({1: 3.0})  # one worker: nothing to compare
    assert not one_worker_idle({})
    assert not one_worker_idle({1: 0.0, 2: 0.0})


@pytest.mark.django_db
def test_the_meter_reports_each_worker_of_the_server_group_but_its_first(tmp_path):
    from django.db import connection

    go, burnt = tmp_path / "go", tmp_path / "burnt"
    # An "arbiter" (the group's leader) with one worker that burns CPU and one that sleeps.
    child = (f"import os, time\nwhile not os.path.exists({str(go)!r}): time.sleep(0.02)\n{BURN}"
             f"open({str(burnt)!r}, 'w').close()\ntime.sleep(30)\n")
    script = (f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {child!r}])\n"
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\ntime.sleep(30)\n")
    server = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        time.sleep(0.5)  # both workers started
        meter = CpuMeter(server_pgid=server.pid, database=connection.settings_dict["NAME"], redis_pid=None)
        meter.start()
        go.touch()
        _wait_for(burnt)
        meter.stop()
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    assert server.pid not in meter.worker_seconds and len(meter.worker_seconds) == 2
    assert max(meter.worker_seconds.values()) >= 0.35
    assert one_worker_idle(meter.worker_seconds)
