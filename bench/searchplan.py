"""Search, term by term, in-process: what the window query costs and which plan PostgreSQL chose.

For each benchmark term, with the search window cache off (every call computes the window):
- the whole `GET /search/{term}/` through the Django test client (token, rate limit, window, page,
  serialisation): median and p95 of `REQUESTS` calls;
- the SQL statements of one request, each run again under `EXPLAIN (ANALYZE, BUFFERS)`: the scan
  nodes (which index, or a sequential scan), the rows they visited, the buffers touched, the execution
  time. A term's plan is "scan-free" when no node is a sequential scan of a Things or search table.

  python -m bench.searchplan [--database thingyard_bench_1m] [--requests 15]   (prints JSON)
"""
import json
import os
import re
import statistics
import sys
import time

REQUESTS = 15
_SCAN = re.compile(
    r"(Seq Scan|Parallel Seq Scan|Index Scan Backward|Index Scan|Index Only Scan|Bitmap Index Scan|Bitmap Heap Scan)"
    r"(?: using| on)? (\S+)(?: on (\S+))?"
)


def _plan_summary(plan_lines: list[str]) -> dict:
    scans = []
    for line in plan_lines:
        match = _SCAN.search(line)
        if not match:
            continue
        rows = re.search(r"actual time=[\d.]+\.\.[\d.]+ rows=(\d+) loops=(\d+)", line)
        visited = int(rows.group(1)) * int(rows.group(2)) if rows else None
        scans.append({"node": match.group(1), "object": match.group(2), "table": match.group(3),
                      "rows": visited})
    execution = next((float(m.group(1)) for ln in plan_lines if (m := re.search(r"Execution Time: ([\d.]+)", ln))), None)
    planning = next((float(m.group(1)) for ln in plan_lines if (m := re.search(r"Planning Time: ([\d.]+)", ln))), None)
    buffers = next((ln.strip() for ln in plan_lines if ln.strip().startswith("Buffers:")), "")
    removed = sum(int(m.group(1)) for ln in plan_lines if (m := re.search(r"Rows Removed by Filter: (\d+)", ln)))
    seq = [s for s in scans if s["node"] in ("Seq Scan", "Parallel Seq Scan")
           and re.match(r"(things_thing|search_thing)\b", s["object"] or "")]
    return {"scans": scans, "execution_ms": execution, "planning_ms": planning, "buffers": buffers,
            "rows_removed_by_filter": removed, "sequential_scan": bool(seq)}


def searchplan_run(*, requests: int = REQUESTS) -> list[dict]:
    """Per term: request timings, and per SQL statement of one request its plan summary."""
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bench import words
    from bench.targets import bench_client_token, search_paths

    settings.SEARCH_WINDOW_CACHE_SECONDS = 0
    client = Client(HTTP_AUTHORIZATION=f"Bearer {bench_client_token()}")
    results = []
    for term, path in zip(words.SEARCH_TERMS, search_paths()):
        client.get(path)  # warm: the pages this term reads are in shared buffers, as under load
        samples = []
        for _ in range(requests):
            start = time.perf_counter()
            response = client.get(path)
            samples.append((time.perf_counter() - start) * 1000)
        samples.sort()
        with CaptureQueriesContext(connection) as captured:
            client.get(path)
        statements = []
        with connection.cursor() as cursor:
            for query in captured.captured_queries:
                sql = query["sql"]
                if not re.search(r"\b(things_thing|search_thing)\b", sql) or not sql.lstrip().upper().startswith(
                        ("SELECT", "WITH")):
                    continue
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
                plan = [row[0] for row in cursor.fetchall()]
                statements.append({"sql": sql[:300], "plan": plan, **_plan_summary(plan)})
        results.append({
            "term": term, "status": response.status_code,
            "request_p50_ms": statistics.median(samples),
            "request_p95_ms": samples[max(0, int(len(samples) * 0.95) - 1)],
            "statements": statements,
        })
    return results


def print_summary(results: list[dict], label: str) -> None:
    for r in results:
        window = max(r["statements"], key=lambda s: s["execution_ms"] or 0, default=None)
        plan = ", ".join(f"{s['node']} {s['object']}" for s in (window or {}).get("scans", []))
        sql_ms = f"{window['execution_ms']:.1f}" if window else "?"
        print(f"  {label:5} {r['term']:<12} request p50 {r['request_p50_ms']:6.1f} p95 {r['request_p95_ms']:6.1f} ms"
              f"  slowest SQL {sql_ms} ms: {plan}", flush=True)


def main() -> int:
    import argparse

    from bench import seed

    parser = argparse.ArgumentParser(prog="python -m bench.searchplan")
    parser.add_argument("--database", default=seed.DB_NAME)
    parser.add_argument("--requests", type=int, default=REQUESTS)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = seed.database_url(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/thingyard"), args.database
    )
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    os.environ["RATE_LIMIT_REQUESTS"] = str(10**9)
    import django

    django.setup()
    print("SEARCHPLAN_RESULT " + json.dumps(searchplan_run(requests=args.requests)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
