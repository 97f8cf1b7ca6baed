"""What this machine charges for the things a request is made of (issue 24): the interpreter's speed and
one round trip to each server, measured before the HTTP targets and reported beside them.

The targets are ratios to the floor, which never waits for PostgreSQL or Redis; an API read waits for
each once. So a ratio moves with what a round trip costs against what Python costs, from one machine to
the next, with the same code: on 2026-11-29 a fast machine measured a first read at 0.35 of the floor,
and a virtual machine on which a round trip cost up to two or three times as much CPU while its other core
was idle measured the same code at 0.24-0.27. These figures tell such machines apart in
docs/benchmarks.md.

The round trips are measured twice: with the machine's other cores idle, and with each of them kept busy
by a process spinning in a loop. On a virtual machine a core that went idle may cost much more to wake
than one that was busy (on 2026-11-29: a PING 32 µs of the client's CPU and 40 of Redis's with the other
core idle, 14 and 10 with it busy). Under the bench's load the cores are busy most of the time, but an API
read's waits leave them idle now and then, and the floor's never do.

Each figure is the best of `ROUNDS` runs (the machine is shared: the minimum is the cost):
- `loop_us`: an empty Python `for` iteration;
- `redis_*`: PING on one connection, sent and read as the request path's scripts are (apps.core.cache);
- `postgres_*`: a prepared `SELECT 1` on one connection, autocommit, as the request path's statements are.
`*_client_cpu_us` is the calling thread's CPU, `*_server_cpu_us` the server process's (from /proc, when
it runs here), `*_wall_us` the elapsed time.
"""
import os
import subprocess
import sys
import time

from bench.cpu import process_seconds

ROUNDS = 3
ROUND_TRIPS = 2000
LOOP = 2_000_000


def _timed(run, server_pid: int | None, count: int) -> tuple[float, float | None, float]:
    """(client CPU µs, server CPU µs or None, wall µs) per call of `run`, the best of ROUNDS."""
    best: tuple[float, float | None, float] | None = None
    for _ in range(ROUNDS):
        server0 = process_seconds(server_pid)
        cpu0, wall0 = time.thread_time(), time.perf_counter()
        for _ in range(count):
            run()
        cpu1, wall1 = time.thread_time(), time.perf_counter()
        server1 = process_seconds(server_pid)
        server = (server1 - server0) / count * 1e6 if server0 is not None and server1 is not None else None
        figure = ((cpu1 - cpu0) / count * 1e6, server, (wall1 - wall0) / count * 1e6)
        if best is None or figure[0] < best[0]:
            best = figure
    assert best is not None
    return best


def _loop_us() -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(LOOP):
            pass
        best = min(best, (time.perf_counter() - start) / LOOP * 1e6)
    return best


def machine_costs(*, redis_url: str, redis_pid: int | None, count: int = ROUND_TRIPS) -> dict:
    """The figures above, idle and busy (`{"loop_us", "idle": {...}, "busy": {...}}`); `redis_pid`: the
    Redis server's pid when it runs here (bench.cpu)."""
    figures: dict = {"loop_us": _loop_us(), "idle": _round_trips(redis_url, redis_pid, count)}
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(max(1, (os.cpu_count() or 2) - 1))]
    try:
        time.sleep(0.2)
        figures["busy"] = _round_trips(redis_url, redis_pid, count)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    return figures


def _round_trips(redis_url: str, redis_pid: int | None, count: int) -> dict:
    import psycopg
    import redis
    from django.db import connection

    figures: dict = {}
    client = redis.Redis.from_url(redis_url)
    link = client.connection_pool.get_connection()
    try:
        def ping():
            link.send_command("PING")
            link.read_response()

        ping()
        figures["redis_client_cpu_us"], figures["redis_server_cpu_us"], figures["redis_wall_us"] = _timed(
            ping, redis_pid, count)
    finally:
        client.connection_pool.release(link)
        client.close()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as database:
        cursor = database.cursor()

        def select():
            cursor.execute("SELECT 1", prepare=True)
            cursor.fetchall()

        select()
        (figures["postgres_client_cpu_us"], figures["postgres_server_cpu_us"],
         figures["postgres_wall_us"]) = _timed(select, database.info.backend_pid, count)
    return figures


def machine_costs_line(figures: dict) -> str:
    def trip(state: dict, name: str) -> str:
        server = state.get(f"{name}_server_cpu_us")
        return (f"{state[f'{name}_client_cpu_us']:.0f} µs of the client's CPU"
                + (f" and {server:.0f} of the server's" if server is not None else "")
                + f", {state[f'{name}_wall_us']:.0f} µs elapsed")

    idle, busy = figures["idle"], figures["busy"]
    return (
        f"an empty loop iteration {figures['loop_us']:.3f} µs; a round trip to Redis (PING) "
        f"{trip(idle, 'redis')} with the other cores idle, {trip(busy, 'redis')} with them busy; "
        f"to PostgreSQL (a prepared SELECT 1) {trip(idle, 'postgres')} idle, {trip(busy, 'postgres')} busy"
    )
