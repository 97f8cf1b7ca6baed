"""Access-log micro-benchmark: µs of CPU per line, gunicorn's plain logger against ours (issue 17).

Each logger writes `LINES` access-log lines in the production format to a file (gunicorn's default
format, as `--access-logfile -` prints it), for a request shaped like a real one under gunicorn: the
full WSGI environ (about 30 entries), eight request headers (one a Bearer token), six response headers.
Two requests: a usual one (the token in the header) and one carrying `?access_token=` in its query.
Each figure is the best of `REPEATS` runs (the machine is shared: the minimum is the cost, the rest is
noise); the ratio is taken inside the run.

  python -m bench.logbench
"""
import io
import os
import sys
import tempfile
import time
from datetime import timedelta
from types import SimpleNamespace

LINES = 5000
REPEATS = 5
TARGET_RATIO = 1.25  # the redacting logger's µs/line at most this multiple of the plain logger's


def _request(query: str):
    environ = {
        "wsgi.errors": sys.stderr, "wsgi.version": (1, 0), "wsgi.multithread": True,
        "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.file_wrapper": object,
        "wsgi.input_terminated": True, "wsgi.input": io.BytesIO(), "wsgi.url_scheme": "http",
        "SERVER_SOFTWARE": "gunicorn/23.0.0", "REQUEST_METHOD": "GET", "QUERY_STRING": query,
        "RAW_URI": "/things/48213/" + (f"?{query}" if query else ""), "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "api.thingyard.example", "HTTP_USER_AGENT": "thingyard-client/2.1 (python-requests/2.32)",
        "HTTP_ACCEPT": "application/json", "HTTP_ACCEPT_ENCODING": "gzip, deflate",
        "HTTP_AUTHORIZATION": "Bearer 0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
        "HTTP_REFERER": "https://app.example.com/things/48213", "HTTP_X_FORWARDED_FOR": "203.0.113.7",
        "HTTP_CONNECTION": "keep-alive", "REMOTE_ADDR": "10.0.0.12",
        "REMOTE_PORT": "51234", "SERVER_NAME": "0.0.0.0", "SERVER_PORT": "8000", "PATH_INFO": "/things/48213/",
        "SCRIPT_NAME": "",
    }
    headers = [(k[5:].replace("_", "-"), v) for k, v in environ.items() if k.startswith("HTTP_")]
    request = SimpleNamespace(headers=headers)
    response = SimpleNamespace(status="200 OK", sent=2307, headers=[
        ("Content-Type", "application/json"), ("Vary", "Accept, Origin"), ("Allow", "GET, PATCH, DELETE"),
        ("X-RateLimit-Limit", "300"), ("X-RateLimit-Remaining", "299"), ("X-RateLimit-Reset", "1790000000"),
    ])
    return response, request, environ


def _logger(cls, path: str):
    from gunicorn.config import Config

    cfg = Config()
    cfg.set("accesslog", path)
    cfg.set("errorlog", os.devnull)
    return cls(cfg)


def _per_line_us(logger, case) -> float:
    response, request, environ = case
    elapsed = timedelta(microseconds=4321)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(LINES):
            logger.access(response, request, environ, elapsed)
        best = min(best, (time.perf_counter() - start) / LINES * 1e6)
    return best


def logbench_run() -> dict:
    from gunicorn.glogging import Logger

    from apps.core.security.redaction import RedactingGunicornLogger

    cases = {"usual": _request(""), "query token": _request("access_token=SECRETVALUE123&page=2")}
    results = {}
    with tempfile.TemporaryDirectory(prefix="thingyard-logbench-") as work:
        for name, cls in (("plain", Logger), ("redacting", RedactingGunicornLogger)):
            path = os.path.join(work, f"{name}.log")
            logger = _logger(cls, path)
            for case_name, case in cases.items():
                results[f"{name} {case_name}"] = _per_line_us(logger, case)
            logger.access_log.handlers[0].flush()
            with open(path) as fh:
                text = fh.read()
            if name == "redacting" and ("SECRETVALUE123" in text or "[redacted]" not in text):
                raise AssertionError("the redacting logger wrote a secret (or redacted nothing)")
    results["ratio"] = max(results["redacting usual"] / results["plain usual"],
                           results["redacting query token"] / results["plain query token"])
    return results


def checks_logbench(results: dict):
    from bench.report import Check

    return [Check("access_log_redacting_vs_plain", results["ratio"], f"<= {TARGET_RATIO}",
                  results["ratio"] <= TARGET_RATIO,
                  f"{results['redacting usual']:.1f} vs {results['plain usual']:.1f} µs/line")]


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    import django

    django.setup()
    results = logbench_run()
    for name, value in results.items():
        print(f"{name:28} {value:8.2f}" + (" µs/line" if name != "ratio" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
