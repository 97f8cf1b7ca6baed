"""Targets (ok/MISS lines), the ratios taken inside each round, and docs/benchmarks.md."""
import os
import platform
import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import gunicorn

from bench.machinecost import machine_costs_line

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"

SEED_SECONDS_TARGET = 120.0
# The figures of the last benchmark before issue 17 (docs/benchmarks.md of 2026-11-21, quiet machine),
# printed beside this run's.
PREVIOUS = {
    "upload_stl_seconds": 8.28, "upload_stl_peak_rss_mb": 237.3,
    "upload_jpeg_seconds": 0.32, "upload_jpeg_peak_rss_mb": 143.2,
    "webhook_latency_p50_ms": 13.7, "webhook_latency_p95_ms": 15.3, "webhook_deliveries_per_s": 106.0,
}


@dataclass
class Check:
    name: str
    value: float | None
    target: str
    ok: bool
    note: str = ""
    skipped: bool = False  # not measured in this run by choice (e.g. without --scale): never a miss

    def line(self) -> str:
        if self.value is None:
            shown = "not measured"
        else:
            shown = str(self.value) if isinstance(self.value, int) else f"{self.value:.2f}"
        extra = f"  ({self.note})" if self.note else ""
        status = "SKIP" if self.skipped else "ok  " if self.ok else "MISS"
        return f"  {status} {self.name}: {shown} (target {self.target}){extra}"


def check_seed(seconds: float, *, things: int, reused: bool) -> Check:
    return Check(f"seed_{things // 1000}k_seconds", seconds, f"< {SEED_SECONDS_TARGET:.0f}",
                 seconds < SEED_SECONDS_TARGET, "timed when seeded; reused this run" if reused else "")


@dataclass(frozen=True)
class Ratio:
    """`target / base` of one measure (throughput or p95), taken inside each round."""

    name: str
    target: str
    base: str
    measure: str  # "throughput" | "p95_ms"
    op: str = ""  # ">=" | "<="; empty: reported, no target
    goal: float = 0.0
    needs_scale: bool = False

    def per_round(self, targets) -> list[float]:
        a, b = targets.get(self.target), targets.get(self.base)
        if not a or not b or not a.results or not b.results:
            return []
        return [getattr(x, self.measure) / getattr(y, self.measure)
                for x, y in zip(a.results, b.results)
                if getattr(y, self.measure) and (self.measure != "per_cpu_second" or x.per_cpu_second)]

    def describe(self) -> str:
        what = {"throughput": "throughput", "per_cpu_second": "requests per CPU-second"}.get(self.measure, "p95")
        return f"{self.target} {what} / {self.base} {what}"


# Issue 17's targets, as ratios (absolute figures move with the machine; ratios inside a run do not).
RATIOS = [
    Ratio("detail_vs_floor", "detail", "floor", "throughput", ">=", 0.5),
    Ratio("detail_vs_drf", "detail", "detail_drf", "throughput", ">=", 3.0),
    Ratio("list_vs_floor", "list", "floor", "throughput", ">=", 0.3),
    Ratio("list_vs_drf", "list", "list_drf", "throughput", ">=", 3.0),
    Ratio("search_1m_p95_vs_100k", "search_1m", "search", "p95_ms", "<=", 1.5, needs_scale=True),
    Ratio("search_1m_vs_floor", "search_1m", "floor", "throughput", ">=", 0.2, needs_scale=True),
    # Reported without a target: what the window cache hides, and search beside the baseline.
    Ratio("search_vs_floor", "search", "floor", "throughput"),
    Ratio("search_vs_drf", "search", "search_drf", "throughput"),
    Ratio("search_cold_1m_p95_vs_100k", "search_1m_cold", "search_cold", "p95_ms", needs_scale=True),
    Ratio("search_1m_cold_vs_floor", "search_1m_cold", "floor", "throughput", needs_scale=True),
    # The request-path caches off (the first read of a Thing, or every read with them off).
    Ratio("detail_cold_vs_floor", "detail_cold", "floor", "throughput"),
    Ratio("detail_cold_vs_drf", "detail_cold", "detail_drf", "throughput"),
    Ratio("list_cold_vs_floor", "list_cold", "floor", "throughput"),
    Ratio("catalog_cold_vs_floor", "catalog_cold", "floor", "throughput"),
    # Issue 24: Zipf-distributed reads over the whole catalogue (not warmed: the long tail's first reads).
    Ratio("detail_zipf_vs_floor", "detail_zipf", "floor", "throughput"),
    # ... with Things changing while the reads run (bench.targets.Writer), on a server of its own.
    Ratio("detail_mixed_vs_floor", "detail_mixed", "floor", "throughput"),
    # Issue 24's first-read targets: the uncached path itself (caches off), beside the warm one.
    Ratio("first_read_detail_vs_floor", "detail_cold", "floor", "throughput", ">=", 0.4),
    Ratio("first_read_list_vs_floor", "list_cold", "floor", "throughput", ">=", 0.2),
    Ratio("warm_detail_vs_floor", "detail", "floor", "throughput", ">=", 0.6),
    # Reported, no target: what the two waits of every API read alone leave of the floor (bench.views.floor_waits).
    Ratio("floor_waits_vs_floor", "floor_waits", "floor", "throughput"),
    Ratio("floor_waits_cpu_vs_floor", "floor_waits", "floor", "per_cpu_second"),
    # The same three by CPU per request (bench.cpu): what the throughput ratio tends to on a quiet machine
    # with its cores busy, and much steadier between rounds on a shared one. Reported, not targets.
    Ratio("first_read_detail_cpu_vs_floor", "detail_cold", "floor", "per_cpu_second"),
    Ratio("first_read_list_cpu_vs_floor", "list_cold", "floor", "per_cpu_second"),
    Ratio("warm_detail_cpu_vs_floor", "detail", "floor", "per_cpu_second"),
    Ratio("warm_list_cpu_vs_floor", "list", "floor", "per_cpu_second"),
]


def _reruns(targets: dict) -> str:
    count = sum(t.reruns for t in targets.values())
    return "none" if not count else f"{count} run{'s' if count > 1 else ''}"


def _fmt_ratio(value: float) -> str:
    return f"{value:.3f}" if value < 1 else f"{value:.2f}"


def checks_http(targets: dict, *, scale: bool) -> list[Check]:
    checks = []
    for ratio in RATIOS:
        if not ratio.op:
            continue
        goal = f"{ratio.op} {ratio.goal:g}"
        values = ratio.per_round(targets)
        if not values:
            if ratio.needs_scale and not scale:
                checks.append(Check(ratio.name, None, goal, True, "run with --scale", skipped=True))
                continue
            missing = [targets[k].skipped for k in (ratio.target, ratio.base) if k in targets and targets[k].skipped]
            checks.append(Check(ratio.name, None, goal, False, "; ".join(missing) or "not run"))
            continue
        median = statistics.median(values)
        ok = median >= ratio.goal if ratio.op == ">=" else median <= ratio.goal
        checks.append(Check(ratio.name, median, goal, ok,
                            "median of rounds " + ", ".join(_fmt_ratio(v) for v in values)))
    for target in targets.values():
        if target.results:
            errors = target.errors
            checks.append(Check(f"{target.key}_errors", sum(errors.values()), "= 0", not errors,
                                ", ".join(f"{k} {v}" for k, v in errors.items())))
    return checks


def table(targets: dict) -> list[str]:
    floor = targets.get("floor")
    rows = [
        "| target | server | path | body (bytes) | requests | req/s (median) | vs floor | CPU ms/req (median) "
        "| p50 ms | p95 ms | p99 ms | errors |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in targets.values():
        example = f"`{t.paths[0]}`" if t.paths else ""
        if len(t.paths) > 1:
            example += f" (+{len(t.paths) - 1} more)"
        if not t.results:
            rows.append(f"| {t.label} | {t.server} | {example} | | | | | | | | | not measured: {t.skipped} |")
            continue
        per_round = [x.throughput / y.throughput for x, y in zip(t.results, floor.results)] if floor and floor.results else []
        ratio = f"{statistics.median(per_round):.3f}" if per_round else ""
        cpus = [r.cpu_ms_per_request for r in t.results if r.cpu_ms_per_request]
        cpu = f"{statistics.median(cpus):.2f}" if cpus else ""
        rows.append(
            f"| {t.label} | {t.server} | {example} | {t.body_bytes} | {t.requests} | {t.median('throughput'):.0f} "
            f"| {ratio} | {cpu} | {t.median('p50_ms'):.1f} | {t.median('p95_ms'):.1f} | {t.median('p99_ms'):.1f} "
            f"| {sum(t.errors.values())} |"
        )
    return rows


def ratio_table(targets: dict, rounds: int) -> list[str]:
    rows = [
        "| ratio | what | " + " | ".join(f"round {i}" for i in range(1, rounds + 1)) + " | median | target |",
        "|---|---|" + "---:|" * rounds + "---:|---|",
    ]
    for ratio in RATIOS:
        values = ratio.per_round(targets)
        if not values:
            continue
        cells = [_fmt_ratio(v) for v in values] + [""] * (rounds - len(values))
        median = statistics.median(values)
        if ratio.op:
            ok = median >= ratio.goal if ratio.op == ">=" else median <= ratio.goal
            goal = f"{ratio.op} {ratio.goal:g}: **{'met' if ok else 'missed'}**"
        else:
            goal = "(reported)"
        rows.append(f"| {ratio.name} | {ratio.describe()} | " + " | ".join(cells)
                    + f" | {_fmt_ratio(median)} | {goal} |")
    return rows


def machine() -> dict:
    mem_kb = 0
    try:
        with open("/proc/meminfo") as fh:
            mem_kb = int(next(ln for ln in fh if ln.startswith("MemTotal")).split()[1])
    except (OSError, StopIteration, ValueError):
        pass
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(ln for ln in fh if ln.startswith("model name")).split(":", 1)[1].strip()
    except (OSError, StopIteration):
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "memory": f"{mem_kb / 1024 / 1024:.1f} GiB" if mem_kb else "?",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "loadavg": " / ".join(f"{x:.2f}" for x in os.getloadavg()),
        "gunicorn": gunicorn.__version__,
    }


def _plans_section(plans: dict) -> list[str]:
    if not plans:
        return []
    scales = list(plans)
    header = "| term | " + " | ".join(f"{s} request p50 / p95 ms | {s} slowest statement ms | {s} plan" for s in scales) + " |"
    rows = [header, "|---|" + "---:|---:|---|" * len(scales)]
    by_term: dict[str, dict] = {r["term"]: {} for r in plans[scales[0]]}
    for scale, results in plans.items():
        for r in results:
            by_term.setdefault(r["term"], {})[scale] = r
    for term, per_scale in by_term.items():
        cells = []
        for scale in scales:
            r = per_scale.get(scale)
            if r is None:
                cells += ["", "", ""]
                continue
            slowest = max(r["statements"], key=lambda st: st["execution_ms"] or 0, default=None)
            plan = "; ".join(f"{sc['node']} {sc['object']} ({sc['rows']} rows)" for sc in (slowest or {}).get("scans", []))
            if slowest and slowest["sequential_scan"]:
                plan = "**sequential scan**: " + plan
            cells += [f"{r['request_p50_ms']:.1f} / {r['request_p95_ms']:.1f}",
                      f"{slowest['execution_ms']:.1f}" if slowest else "", plan]
        rows.append(f"| `{term}` | " + " | ".join(cells) + " |")
    scan_free = all(not st["sequential_scan"] for results in plans.values() for r in results for st in r["statements"])
    return [
        "## Search, term by term (in-process, window cache off)",
        "",
        "Each term's whole `GET /search/{term}/` through the Django test client (token, rate limit, window, "
        "page, serialisation; no concurrency), median and p95 of 15 calls; then every statement of one "
        "request under `EXPLAIN (ANALYZE, BUFFERS)`: the slowest one's execution time and its scan nodes "
        "(rows = rows the node returned). " + ("No statement scans a Things or search table sequentially."
                                               if scan_free else "**Some statement scans sequentially.**"),
        "",
        *rows,
        "",
    ]


def _logbench_section(logbench: dict | None) -> list[str]:
    if not logbench:
        return []
    from bench import logbench as lb

    return [
        "## Access-log formatter (µs of CPU per line)",
        "",
        "| logger | usual request | `?access_token=` in the query |",
        "|---|---:|---:|",
        f"| gunicorn's plain `Logger` | {logbench['plain usual']:.1f} | {logbench['plain query token']:.1f} |",
        f"| `apps.core.security.redaction.RedactingGunicornLogger` | {logbench['redacting usual']:.1f} "
        f"| {logbench['redacting query token']:.1f} |",
        "",
        f"`python -m bench.logbench`: {lb.LINES} lines per logger in the production format to a file, best of "
        f"{lb.REPEATS}; target: the redacting logger ≤ {lb.TARGET_RATIO}× the plain one in the same run "
        f"(this run: {logbench['ratio']:.2f}×). Before issue 17 the redacting logger cost 455 µs per usual "
        "line (10.7× the plain one), because it ran its patterns over every header and environ value.",
        "",
    ]


def doc_write(*, targets, checks, seed, scale, settings: dict, info: dict, inprocess: dict, logbench=None,
              plans=None, uploads=None, webhooks=None, command: str = "") -> None:
    missed = [c for c in checks if not c.ok and not c.skipped]
    skipped = [c for c in checks if c.skipped]
    verdict = (
        "Every target is met." if not missed
        else f"**{len(missed)} target(s) missed**: " + ", ".join(f"`{c.name}`" for c in missed) + "."
    )
    if skipped:
        verdict += " Not measured in this run: " + ", ".join(f"`{c.name}`" for c in skipped) + "."
    lines = [
        "# Benchmarks",
        "",
        "Generated by `make bench` (`python -m bench`); rerun it to refresh every figure below.",
        "",
        f"Run: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, `make bench"
        + (f' BENCH_ARGS="{command}"' if command else "") + "`.",
        "",
        verdict,
        "",
        "## Targets",
        "",
        "Ratios are medians of the rounds' ratios, each taken inside one round (the same servers, one target "
        "after the other), so they hold on a busier or faster machine where absolute figures do not.",
        "",
        "```",
        *[c.line().strip() for c in checks],
        "```",
        "",
        "## Ratios, round by round",
        "",
        *ratio_table(targets, settings.get("rounds", 1)),
        "",
        "## HTTP throughput and latency under gunicorn (medians of the rounds)",
        "",
        *table(targets),
        "",
        *_plans_section(plans or {}),
        *_logbench_section(logbench),
        "## Method",
        "",
        f"- Data: the `thingyard_bench` database with {seed.things:,} Things ({settings['seed_line']})"
        + (f"; with `--scale`, `thingyard_bench_1m` with {scale['things']:,} Things by the same generator "
           f"(seeded {scale['seeded_at']} in {scale['seconds']:.0f} s)" if scale else "") + ".",
        f"- Server: {settings['server']}, on free loopback ports, settings `bench.settings` (the test "
        "settings with DEBUG off, persistent database connections and health checks as in production, rate "
        "limit raised out of the way; `bench.urls` = the production URLconf plus the floor and the DRF "
        "baseline). One server per catalogue and per search-cache setting (`main`, `main_cold`, `scale`, "
        "`scale_cold`, and `main_mixed` for the reads with writes); the idle ones cost nothing while another is "
        "loaded.",
        f"- Load: {settings['tool']}; {settings['concurrency']} concurrent keep-alive connections, "
        f"{settings['warmup']:g} s warm-up then {settings['duration']:g} s measured per target; "
        f"{settings['rounds']} rounds, each loading every target once in the order of the table. A run whose "
        "connections all landed on one gunicorn worker (the other idle, `bench.cpu.one_worker_idle`: the "
        "workers race to accept wrk's burst of connections) measures one interpreter on one core, not the "
        "server, and is measured again, at most 3 times"
        + f" ({_reruns(targets)} in this run).",
        "- Floor: a plain Django view (`bench.views.floor`: no DRF, no authentication, no database) that "
        "serialises a JSON object of the same size as the Thing detail body (a real detail response, "
        "replayed) through the same middleware stack.",
        "- DRF baseline (`bench/drf_baseline.py`): a `ReadOnlyModelViewSet` over the same tables, "
        "`ModelSerializer`s, django-oauth-toolkit's `OAuth2Authentication`, `PageNumberPagination` (with its "
        "COUNT), search as Django's documentation writes it (`SearchQuery` on the stored vector, ordered by "
        "`SearchRank`); no rate limit. Served by the same gunicorn, same token.",
        "- API targets send a Bearer token of an approved app (the full authentication and rate-limit "
        "path, counting in Redis). Detail requests pick a random published Thing among "
        f"{settings['detail_ids']} ids; search requests pick a random term among "
        + ", ".join(f"`{t}`" for t in settings["search_terms"])
        + " (from a very common word to a rare one); any non-2xx answer is an error.",
        "- `search` is search as deployed (its ranked window cached in Redis for 60 s, so under load most "
        "requests reuse a window); `search, window cache off` computes every window, the worst case.",
        "- Detail and list are measured as deployed, with the request-path caches of issue 17 (a Thing's "
        "body and short form in Redis, the token row): before each round's detail target every detail path is "
        "read once (a body lives 600 s), so the rounds measure the steady state in which a Thing's body was built by an earlier "
        "request. `detail, caches off` and `list, caches off` run on the `main_cold` server, whose body "
        "cache, token cache and search window cache are off: what every request would cost without them "
        "(a Thing's first read after a change costs about that).",
        "- Which figure is warm: `GET /things/{id}/` is the warm working set (the bench's own detail paths, "
        "read before each round); `detail, Zipf over the catalogue` draws 20,000 requests Zipf-distributed "
        "(exponent 1) over every published Thing, not warmed: a hot head answered from the cache and a long "
        "tail of first reads, as real readers make them; `detail, Zipf + writes` is the same draw on the "
        "`main_mixed` server while a writer thread likes and unlikes Things drawn from the same Zipf paths "
        "through the services (`bench.targets.Writer`, about 25 writes/s; each moves the Thing's version, so "
        "its next read is built afresh): the mixed figure; `caches off` is every read a first read, the "
        "first-read figure (`first_read_*` ratios). Each "
        "server has its own cache prefix (`CACHE_KEY_PREFIX=bench-<server>`): none answers from another's "
        "entries.",
        "- Beyond the bench's own sample (issue 24): `catalogue lists, caches off` picks each request among "
        "the catalogue's other lists on the `main_cold` server: `/categories/`, `/tags/`, `/popular/` page 1, "
        "20 categories' and the 20 largest tags' Things, the same tags' searches (`/search/{tag}/tag`), 50 "
        "Things' tags (each path once, so each kind weighs by its number of paths); reported beside the "
        "floor, no target.",
        "- CPU ms/req (bench.cpu): the CPU time of the target's gunicorn server (its process group), the "
        "PostgreSQL backends of its database, the Redis server and wrk during the measured window, per "
        "request. It is counted per process, so other programs' load on the machine is not in it, and it "
        "varies far less between rounds than throughput does. The `*_cpu_vs_floor` ratios (requests per "
        "CPU-second against the floor's) are what the throughput ratios tend to on a quiet machine whose "
        "cores are all busy; they are reported beside the targets, never instead of them.",
        "- Latency is client-side, from sending the request to reading the whole response; with one "
        "connection per worker thread nothing waits in gunicorn's backlog, but requests share the CPUs.",
        "",
        "Where the targets are missed, [performance.md](performance.md) explains why, with the cost of "
        "each part of a request.",
        "",
        "## Machine",
        "",
        f"- {info['cpus']} CPUs ({info['cpu']}), {info['memory']} memory, {info['os']}",
        f"- Python {info['python']}, {settings['postgres']} ({settings['postgres_settings']}), "
        f"Redis {settings['redis']}, gunicorn {info['gunicorn']}",
        f"- Load average when the measurement started: {info['loadavg']} (wrk, gunicorn, PostgreSQL and "
        "Redis share these CPUs, and other work may run on the machine).",
        *([f"- What it charges (bench/machinecost.py, best of three): {machine_costs_line(info['costs'])}. "
           "The floor never waits for a server and an API read waits for each once, so the ratios move with "
           "these figures from one machine to the next."] if info.get("costs") else []),
        "",
        "## In-process checks (Django test client)",
        "",
        "| check | figure |",
        "|---|---:|",
        *[f"| {name} | {value:.2f} |" for name, value in inprocess.items()],
        "",
    ]
    if uploads:
        lines += uploads_section(uploads)
    if webhooks is not None:
        lines += webhooks_section(webhooks)
    for label, result in (("100k", seed), ("1M", scale)):
        if not result:
            continue
        result = result if isinstance(result, dict) else result.__dict__
        if not result.get("steps"):
            continue
        lines += [
            f"## Seeding ({label})",
            "",
            (f"This run reused the catalogue seeded {result['seeded_at']}: " if result["reused"] else "")
            + f"{result['things']:,} Things seeded in {result['seconds']:.1f} s"
            + (f" (target < {SEED_SECONDS_TARGET:.0f} s)" if label == "100k" else "")
            + " with PostgreSQL COPY (psycopg 3), secondary indexes dropped and rebuilt around the load, in one "
            f"transaction; search vectors and search rows by {result['vectors_by']}.",
            "",
            "| step | seconds |",
            "|---|---:|",
            *[f"| {name} | {secs:.1f} |" for name, secs in result["steps"].items()],
            "",
        ]
    lines += [
        "## Reproduce",
        "",
        "`make bench` after `make install-test`, with PostgreSQL and Redis running (`DATABASE_URL`, "
        "`REDIS_URL`). The first run creates and seeds `thingyard_bench`; later runs reuse it "
        "(`make bench BENCH_ARGS=--reseed` seeds again). `BENCH_ARGS=--scale` adds the 1M catalogue "
        "(seeded once, a few minutes). `BENCH_ARGS` also takes `--rounds`, `--duration`, `--concurrency`, "
        "`--workers`, `--no-fail` (report without failing), `--no-docs`; see `python -m bench --help`. wrk "
        "is installed with apt-get when missing.",
        "",
    ]
    DOC_PATH.write_text("\n".join(lines))


def uploads_section(results) -> list[str]:
    """Upload processing (bench/uploads.py): finalize-to-live time and the worker's peak memory."""
    from bench import uploads

    return [
        "## Upload processing (finalize to live)",
        "",
        "| upload | file (MB) | status | finalize→live (s) | incl. worker start (s) | worker RSS before (MB) "
        "| worker peak RSS (MB) | work (MB) | peak before issue 17 (MB) |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
        *[f"| {m.label} | {m.file_mb:.1f} | {m.status} | {m.seconds:.2f} | {m.wall_seconds:.2f} | "
          f"{m.baseline_rss_mb:.0f} | {m.peak_rss_mb:.0f} | {m.peak_rss_mb - m.baseline_rss_mb:.0f} | "
          f"{PREVIOUS['upload_' + m.kind + '_peak_rss_mb']:.0f} |" for m in results],
        "",
        "- Generated uploads: a closed torus of 1,000,000 triangles as binary STL (50 MB) and a "
        f"{uploads.JPEG_SIZE[0]}×{uploads.JPEG_SIZE[1]} JPEG (gradients and noise, quality 90), put in moto's S3 "
        "server (its own thread in the bench process, on loopback) with a pending Upload row each.",
        "- Each is finalized by a fresh worker process (`python -m bench.uploads --child`, settings "
        "`bench.settings`: Celery eager, so the on-commit processing task runs in that process): the time is "
        "from the `upload_finalize` call until the row is live; the peak is the process's VmHWM, the "
        "'before' figure its RSS once Django, numpy, Pillow and boto3 are loaded (an idle worker); work = "
        "peak − before. `python -m bench.stlmemory` splits the STL's work by stage.",
        f"- Targets: STL work ≤ {uploads.STL_WORK_MB_TARGET:.0f} MB above the idle worker (the file is read "
        "a chunk at a time, never mapped; the thumbnail orders one depth slab at a time; two parts of a "
        f"derivative in flight), ≤ {uploads.STL_SECONDS_TARGET:.0f} s; JPEG peak ≤ "
        f"{uploads.JPEG_RSS_MB_TARGET:.0f} MB (decoded at 1/4 scale), ≤ {uploads.JPEG_SECONDS_TARGET:.0f} s.",
        f"- Before issue 17 (quiet machine, 2026-11-21): STL {PREVIOUS['upload_stl_seconds']} s, peak "
        f"{PREVIOUS['upload_stl_peak_rss_mb']:.0f} MB; JPEG {PREVIOUS['upload_jpeg_seconds']} s, peak "
        f"{PREVIOUS['upload_jpeg_peak_rss_mb']:.0f} MB.",
        "",
    ]


def webhooks_section(result) -> list[str]:
    """Webhook delivery (bench/webhooks.py): event-to-delivery latency, deliveries/s per worker process."""
    from bench import webhooks

    if result.error:
        return ["## Webhook delivery", "", f"Not measured: {result.error}", ""]
    return [
        "## Webhook delivery (one Celery worker process)",
        "",
        "| phase | events | p50 ms | p95 ms | max ms | deliveries/s |",
        "|---|---:|---:|---:|---:|---:|",
        f"| latency ({webhooks.LATENCY_RATE_PER_S:g} events/s) | {result.latency_events} | "
        f"{result.latency_p50_ms:.1f} | {result.latency_p95_ms:.1f} | {result.latency_max_ms:.1f} | |",
        f"| burst (one transaction) | {result.burst_delivered}/{result.burst_events} | | | | "
        f"{result.deliveries_per_s:.0f} |",
        f"| before issue 17 (quiet machine, 2026-11-21) | | {PREVIOUS['webhook_latency_p50_ms']} | "
        f"{PREVIOUS['webhook_latency_p95_ms']} | | {PREVIOUS['webhook_deliveries_per_s']:.0f} |",
        "",
        "- A real worker (`celery -A config worker --pool=solo`: one process, one task at a time) on the Redis "
        "broker, settings `bench.settings_webhooks`, delivers to a receiver on loopback (http.server threads in "
        "the bench process, answering 200 at once and verifying every signature).",
        "- Latency: from just before the transaction of `webhook_event_record` opens until the receiver has the "
        "request (insert, commit, publish, the worker's claim, signing, a new connection to the checked "
        "address, the POST), on a quiet queue.",
        f"- Throughput: {result.burst_events} events in one transaction, published at commit; the rate is the "
        "worker's steady state between the first and the last arrival. More worker processes scale it "
        "until PostgreSQL or the receivers are the limit.",
        f"- Targets: p95 ≤ {webhooks.LATENCY_P95_MS_TARGET:.0f} ms, ≥ {webhooks.DELIVERIES_PER_S_TARGET:.0f} "
        "deliveries/s per worker process; bad signatures = 0.",
        "",
    ]
