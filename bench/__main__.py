"""`make bench`: speed and memory targets of the API foundation, against the real PostgreSQL and Redis.

Targets are checked here, never in unit tests (timings flake on shared machines). Each line prints the
figure and its target; the exit status is 1 when a target is missed.

  python -m bench [--requests N]
"""
import argparse
import os
import resource
import statistics
import sys
import time

import psycopg

DB_NAME = "thingyard_bench"
TARGETS = {
    "users_me_p95_ms": 25.0,  # GET /users/me, in-process, token auth + rate limit + serialisation
    "other_user_jsonp_p95_ms": 40.0,  # GET /users/{name}/ of another user, JSON-P wrapped
    "ratelimit_per_s": 3000.0,  # rate-limit decisions per second against Redis
    "peak_rss_mb": 300.0,  # whole benchmark process
}


def _ensure_database(base_url: str) -> str:
    with psycopg.connect(base_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)).fetchone():
            conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    return base_url.rsplit("/", 1)[0] + "/" + DB_NAME


def _timed(fn, n):
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = _ensure_database(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/thingyard")
    )
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    os.environ["RATE_LIMIT_REQUESTS"] = str(10**9)  # measure the limiter, never hit it
    import django

    django.setup()
    from django.core.management import call_command
    from rest_framework.test import APIClient

    call_command("migrate", verbosity=0)
    from apps.core.ratelimit import rate_limit_hit
    from apps.demo.services import demo_seed

    summary = demo_seed()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {summary.token}")
    assert client.get("/users/me").status_code == 200

    results = {}
    p50, p95 = _timed(lambda: client.get("/users/me"), args.requests)
    results["users_me_p95_ms"] = p95
    print(f"GET /users/me                 p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")
    p50, p95 = _timed(lambda: client.get("/users/alice/", {"callback": "cb"}), args.requests)
    results["other_user_jsonp_p95_ms"] = p95
    print(f"GET /users/alice/?callback=cb p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")

    n = args.requests * 10
    start = time.perf_counter()
    for _ in range(n):
        rate_limit_hit("bench:ratelimit")
    results["ratelimit_per_s"] = n / (time.perf_counter() - start)
    print(f"rate-limit decisions          {results['ratelimit_per_s']:8.0f} /s")

    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS                      {results['peak_rss_mb']:8.1f} MB")

    failed = []
    for name, target in TARGETS.items():
        value = results[name]
        ok = value >= target if name.endswith("_per_s") else value <= target
        print(f"  {'ok  ' if ok else 'MISS'} {name}: {value:.2f} (target {'>=' if name.endswith('_per_s') else '<='} {target})")
        if not ok:
            failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
