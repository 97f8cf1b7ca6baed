"""bench.machinecost: what the machine charges for a round trip to each server, with its other cores idle
and busy, measured on the real PostgreSQL and Redis (issue 24: the figures beside the bench's ratios)."""
import os

import pytest
from django.conf import settings

from bench.cpu import redis_server_pid
from bench.machinecost import machine_costs, machine_costs_line


def _children() -> set[int]:
    pid = os.getpid()
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry))
    return found


@pytest.mark.django_db
def test_each_round_trip_is_measured_idle_and_busy_and_the_burners_are_reaped():
    before = _children()
    redis_url = settings.REDIS_URL or "redis://127.0.0.1:6379/0"
    figures = machine_costs(redis_url=redis_url, redis_pid=redis_server_pid(redis_url), count=50)
    assert not _children() - before  # the processes that kept the other cores busy are gone
    assert figures["loop_us"] > 0
    for state in ("idle", "busy"):
        for server in ("redis", "postgres"):
            assert figures[state][f"{server}_client_cpu_us"] >= 0
            assert figures[state][f"{server}_wall_us"] > 0
        # PostgreSQL's backend always runs here (/proc); its CPU is read from there.
        assert figures[state]["postgres_server_cpu_us"] is not None
    line = machine_costs_line(figures)
    assert "with the other cores idle" in line and "busy" in line and "SELECT 1" in line
