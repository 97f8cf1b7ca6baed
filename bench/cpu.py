"""CPU seconds an HTTP target costs the machine, beside its throughput (issue 24: an honest bench).

Throughput ratios inside a round move with whatever else the machine does (the floor moved 1,090-2,410
req/s between rounds of one run). The CPU a request costs moves much less: it is counted per process, so
another program's load is not in it. For one target's measured window this adds up the CPU time of the
gunicorn server's processes (its process group), the PostgreSQL backends connected to its database, the
Redis server and wrk (the bench's reaped children), all on this machine (/proc). Requests per CPU-second
of the target against the floor's is what the throughput ratio tends to on a quiet machine whose cores
are all busy; the bench reports it beside the throughput ratios (bench.report, `*_cpu_vs_floor`).
"""
import os
import resource
from typing import cast

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[11]) + int(fields[12])  # utime, stime


def process_seconds(pid: int | None) -> float | None:
    """The CPU seconds (user + system) process `pid` has used so far; None: no pid, or not on this machine."""
    ticks = _ticks(pid) if pid is not None else None
    return ticks / _TICK if ticks is not None else None


def _group(pgid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pgid:
                    found.append(int(entry))
            except OSError:
                pass
    return found


def _children_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CpuMeter:
    """`start()` then `stop()` → CPU seconds in between, or None when the processes cannot be read.
    After `stop()`, `worker_seconds`: the CPU seconds of each of the server's processes but its first
    (gunicorn's workers, without the arbiter), what `one_worker_idle` reads."""

    def __init__(self, *, server_pgid: int, database: str, redis_pid: int | None):
        self.server_pgid, self.database, self.redis_pid = server_pgid, database, redis_pid
        self._before: dict[int, int] = {}
        self._children = 0.0
        self.worker_seconds: dict[int, float] = {}

    def _pids(self, group: list[int] | None = None) -> list[int]:
        """The server's group (`group` when already listed), its database backends and Redis."""
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                           [self.database])
            backends = [row[0] for row in cursor.fetchall()]
        group = _group(self.server_pgid) if group is None else group
        return [*group, *backends, *([self.redis_pid] if self.redis_pid else [])]

    def start(self) -> None:
        self._before = {pid: t for pid in self._pids() if (t := _ticks(pid)) is not None}
        self._children = _children_seconds()

    def stop(self) -> float | None:
        if not self._before:
            return None
        ticks = 0
        group = _group(self.server_pgid)
        workers = set(group) - {self.server_pgid}
        self.worker_seconds = {}
        for pid in set(self._pids(group)) | set(self._before):
            now = _ticks(pid)
            if now is not None:
                spent = now - self._before.get(pid, 0)  # a process started meanwhile: all of it
                ticks += spent
                if pid in workers:
                    self.worker_seconds[pid] = spent / _TICK
        return ticks / _TICK + (_children_seconds() - self._children)


# A worker that spent less than this share of the busiest worker's CPU served no connection of the run.
IDLE_WORKER_SHARE = 0.1


def one_worker_idle(worker_seconds: dict[int, float]) -> bool:
    """Whether a measured run left a gunicorn worker idle: every connection on the other workers.

    gunicorn's gthread workers all wait on one listening socket, and the one that wakes first accepts a
    burst of connections: wrk opens its 4 at once, and in 9 of 25 runs of one target (2 workers × 2
    threads, a 2-core machine) all 4 landed on one worker, whose single interpreter then served the load on one
    core (measured: 1,230-1,340 req/s and a p50 of 3 ms, against 2,370-2,680 and 1.4-1.6 ms for the same
    code when both workers had connections; it cost 0.24 instead of 0.49 of a round's warm-detail
    ratio). Many clients spread over the workers; 4 connections need not, so such a run is measured again
    (bench.targets)."""
    if len(worker_seconds) < 2:
        return False
    busiest = max(worker_seconds.values())
    return busiest > 0 and min(worker_seconds.values()) < IDLE_WORKER_SHARE * busiest


def redis_server_pid(redis_url: str) -> int | None:
    """The pid of the Redis server at `redis_url` when it runs on this machine (its INFO says so)."""
    import redis

    try:
        info = cast(dict, redis.Redis.from_url(redis_url, socket_timeout=2).info("server"))  # a sync client
    except redis.RedisError:
        return None
    pid = info.get("process_id")
    return int(pid) if pid and os.path.exists(f"/proc/{pid}") else None
