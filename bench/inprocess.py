"""In-process checks of the API foundation (Django test client, no HTTP server): latency of two user
endpoints, rate-limit decisions per second against Redis, and the process's peak memory."""
import resource
import statistics
import time

TARGETS = {
    "users_me_p95_ms": 25.0,  # GET /users/me, in-process, token auth + rate limit + serialisation
    "other_user_jsonp_p95_ms": 40.0,  # GET /users/{name}/ of another user, JSON-P wrapped
    "ratelimit_per_s": 3000.0,  # rate-limit decisions per second against Redis
    "peak_rss_mb": 300.0,  # whole benchmark process
}


def _timed(fn, n):
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def inprocess_run(*, requests: int) -> dict:
    """Figures keyed like TARGETS (peak RSS is read last, by inprocess_peak_rss)."""
    from rest_framework.test import APIClient

    from apps.core.pipeline.ratelimit import rate_limit_hit
    from apps.demo.services import demo_seed

    summary = demo_seed()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {summary.token}")
    assert client.get("/users/me").status_code == 200

    results = {}
    p50, p95 = _timed(lambda: client.get("/users/me"), requests)
    results["users_me_p95_ms"] = p95
    print(f"GET /users/me                 p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")
    p50, p95 = _timed(lambda: client.get("/users/alice/", {"callback": "cb"}), requests)
    results["other_user_jsonp_p95_ms"] = p95
    print(f"GET /users/alice/?callback=cb p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")

    n = requests * 10
    start = time.perf_counter()
    for _ in range(n):
        rate_limit_hit("bench:ratelimit")
    results["ratelimit_per_s"] = n / (time.perf_counter() - start)
    print(f"rate-limit decisions          {results['ratelimit_per_s']:8.0f} /s")
    return results


def inprocess_peak_rss() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
