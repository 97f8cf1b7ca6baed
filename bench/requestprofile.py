"""Where a request's time goes: cProfile over an in-process loop of real requests (issue 17).

The bench settings (production-like: DEBUG off, persistent connections with health checks, the rate
limit counting in Redis) against the `thingyard_bench` catalogue; the Django test client sends each
request through the whole WSGI stack (middleware, URL resolution, DRF, the view) with a real token.
Every function's own time (cProfile's tottime, wall clock) goes to one component: a marker function's
to its own, any other function's to the components of its callers (cProfile keeps one level of
callers, so a helper called from both compilation and queryset building is shared between them in
proportion). The components add up to the whole request. Three paths are also shown inclusive.
cProfile's own overhead inflates Python-heavy parts; the shares, not the milliseconds, are the figure.

  python -m bench.requestprofile [--requests 300] [--database thingyard_bench]
"""
import cProfile
import os
import pstats
import sys
import time

REQUESTS = 300

# Markers: a function whose own time, and the time of everything it calls that is no marker itself,
# goes to its component. cProfile keeps one level of callers per function, so an unmarked function's
# time is shared among its callers' components in proportion to the time each call edge carried.
_MARKERS = [
    ("database: statement round trip (psycopg, the server's work)",
     lambda f, n: "/psycopg/" in f or "/psycopg_binary/" in f),
    ("database: connection health check (CONN_HEALTH_CHECKS)",
     lambda f, n: n in ("close_if_health_check_failed", "is_usable")),
    ("Redis round trips (rate limit, caches)", lambda f, n: "/redis/" in f),
    ("token lookup (Python side)", lambda f, n: n == "access_token_get_active"),
    ("rate limit (Python side)", lambda f, n: n == "rate_limit_hit"),
    ("SQL compilation (SQLCompiler.as_sql)",
     lambda f, n: f.endswith("sql/compiler.py") and n in ("as_sql", "pre_sql_setup")),
    ("rows to objects (iterables, from_db, converters)",
     lambda f, n: (f.endswith("models/query.py") and n == "__iter__") or (f.endswith("models/base.py") and n == "from_db")
     or (f.endswith("sql/compiler.py") and n in ("results_iter", "apply_converters"))),
    ("building querysets (filter, annotate, select_related, expressions)",
     lambda f, n: (f.endswith("models/query.py") and not n.startswith("_fetch") and n not in ("__iter__", "__len__", "__bool__"))
     or f.endswith("selectors.py")),
    ("serialisation and JSON rendering",
     lambda f, n: "/rest_framework/serializers.py" in f or "/rest_framework/fields.py" in f
     or "/rest_framework/renderers.py" in f or (("/apps/" in f) and (f.endswith("serializers.py") or f.endswith("links.py")))
     or f.endswith("bench/views.py")),
    ("DRF dispatch (APIView, request, authentication, permissions, throttles)", lambda f, n: "/rest_framework/" in f),
    ("Django request cycle (handler, middleware, URL resolution, response)",
     lambda f, n: any(part in f for part in ("/django/core/handlers/", "/django/middleware/", "/django/urls/",
                                            "/django/http/", "/corsheaders/", "/whitenoise/", "apps/core/pipeline/middleware.py"))),
    ("test client (not in production: builds the WSGI request)", lambda f, n: "/django/test/" in f),
]
OTHER = "other (unattributed)"
_INCLUSIVE = {
    "token lookup, all of it (apps.oauth.selectors.access_token_get_active)": ("oauth/selectors.py", "access_token_get_active"),
    "rate limit, all of it (apps.core.pipeline.ratelimit.rate_limit_hit)": ("core/pipeline/ratelimit.py", "rate_limit_hit"),
    "health check, all of it (close_if_health_check_failed)": ("base/base.py", "close_if_health_check_failed"),
}


def _marker(filename: str, name: str) -> str | None:
    for label, test in _MARKERS:
        if test(filename, name):
            return label
    return None


def _components(stats: pstats.Stats) -> dict[str, float]:
    """Seconds per component: each function's own time, by marker or by its callers' components."""
    entries = stats.stats  # type: ignore[attr-defined]  # pstats keeps its table here, untyped
    shares: dict = {}
    for func in entries:
        label = _marker(func[0], func[2])
        shares[func] = {label: 1.0} if label else None
    for _ in range(30):  # propagate down the call graph (cycles settle in a few rounds)
        changed = False
        for func, (_, _, _, _, callers) in entries.items():
            if _marker(func[0], func[2]):
                continue
            total = sum(edge[3] for edge in callers.values()) or 0.0
            mix: dict[str, float] = {}
            for caller, edge in callers.items():
                caller_share = shares.get(caller) or {OTHER: 1.0}
                weight = edge[3] / total if total else 1.0 / len(callers)
                for label, part in caller_share.items():
                    mix[label] = mix.get(label, 0.0) + part * weight
            if not callers:
                mix = {OTHER: 1.0}
            if mix != shares[func]:
                shares[func], changed = mix, True
        if not changed:
            break
    seconds: dict[str, float] = {}
    for func, (_, _, tottime, _, _) in entries.items():
        for label, part in (shares[func] or {OTHER: 1.0}).items():
            seconds[label] = seconds.get(label, 0.0) + tottime * part
    return seconds


def profile_paths(client, paths: list[str], requests: int) -> tuple[float, dict, dict]:
    """(ms per request, {component: ms per request}, {inclusive path: ms per request})."""
    for path in paths[:20]:
        assert client.get(path).status_code == 200, path
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for i in range(requests):
        client.get(paths[i % len(paths)])
    profiler.disable()
    total = (time.perf_counter() - start) * 1000 / requests
    stats = pstats.Stats(profiler)
    components = {label: secs * 1000 / requests for label, secs in _components(stats).items()}
    inclusive = {label: 0.0 for label in _INCLUSIVE}
    for (filename, _, name), (_, _, _tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        for path_label, (file_part, function) in _INCLUSIVE.items():
            if filename.endswith(file_part) and name == function:
                inclusive[path_label] += cumtime * 1000 / requests
    return total, components, inclusive


def requestprofile_run(*, requests: int = REQUESTS) -> dict:
    from django.test import Client

    from bench import seed, words
    from bench.targets import LIST_PER_PAGE, bench_client_token, search_paths
    from bench.urls import FLOOR_PATH

    client = Client(HTTP_AUTHORIZATION=f"Bearer {bench_client_token()}")
    ids = seed.catalogue_sample(count=200)["thing_ids"]
    cases = {
        "floor": [FLOOR_PATH],
        "detail": [f"/things/{i}/" for i in ids],
        "list": [f"/newest/?per_page={LIST_PER_PAGE}&page={p}" for p in range(1, 4)],
        "search (window cached)": search_paths(),
    }
    results: dict[str, object] = {}
    for name, paths in cases.items():
        total, components, inclusive = profile_paths(client, paths, requests)
        results[name] = {"ms": total, "components": components, "inclusive": inclusive}
    results["_terms"] = words.SEARCH_TERMS
    return results


def print_report(results: dict) -> None:
    for name, data in results.items():
        if name.startswith("_"):
            continue
        total = data["ms"]
        print(f"\n{name}: {total:.2f} ms per request (under cProfile)")
        for label, ms in sorted(data["components"].items(), key=lambda kv: -kv[1]):
            if ms / total >= 0.005:
                print(f"  {ms / total:6.1%} {ms:7.3f} ms  {label}")
        for label, ms in data["inclusive"].items():
            if ms:
                print(f"  incl.  {ms / total:6.1%} {ms:7.3f} ms  {label}")


def main() -> int:
    import argparse

    from bench import seed

    parser = argparse.ArgumentParser(prog="python -m bench.requestprofile")
    parser.add_argument("--requests", type=int, default=REQUESTS)
    parser.add_argument("--database", default=seed.DB_NAME)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = seed.database_url(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/thingyard"), args.database
    )
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    os.environ["RATE_LIMIT_REQUESTS"] = str(10**9)
    import django

    django.setup()
    print_report(requestprofile_run(requests=args.requests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
