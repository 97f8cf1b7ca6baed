"""Closed-loop HTTP load with wrk: `concurrency` keep-alive connections, each sending its next request as
soon as the previous answer arrived, for a fixed duration.

wrk is the only load tool of `make bench` (issue 17): a C client on one thread leaves the CPU to the
server, where a Python client would compete with it and flatter slow endpoints. It is Debian's package;
`wrk_ensure()` installs it with apt-get when it is missing and stops the bench with a clear message when
that is not possible. Every non-2xx answer and every socket error counts as an error.
"""
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class LoadResult:
    requests: int
    seconds: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    errors: dict = field(default_factory=dict)
    # CPU seconds the machine spent on the window (bench.cpu.CpuMeter): None when not measured.
    cpu_seconds: float | None = None

    @property
    def throughput(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def per_cpu_second(self) -> float:
        """Requests per CPU-second of the server, its database backends, Redis and wrk (0: not measured)."""
        return self.requests / self.cpu_seconds if self.cpu_seconds else 0.0

    @property
    def cpu_ms_per_request(self) -> float | None:
        return self.cpu_seconds * 1000 / self.requests if self.cpu_seconds and self.requests else None

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


class WrkMissing(SystemExit):
    pass


def wrk_ensure() -> str:
    """The wrk version line; installs Debian's package when wrk is missing (root and apt-get needed)."""
    if shutil.which("wrk") is None:
        print("== wrk is not installed: apt-get install -y wrk", flush=True)
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            raise WrkMissing(
                "make bench needs wrk (the HTTP load generator). Install it first, e.g. "
                "`sudo apt-get install -y wrk` on Debian/Ubuntu or `brew install wrk`; then rerun."
            )
        done = subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], capture_output=True, text=True)
        if done.returncode != 0 or shutil.which("wrk") is None:
            raise WrkMissing(
                "apt-get install -y wrk failed; install wrk by hand and rerun make bench.\n"
                + (done.stderr or done.stdout)[-1500:]
            )
    version = subprocess.run(["wrk", "--version"], capture_output=True, text=True)
    first = (version.stdout or version.stderr).strip().splitlines()
    return first[0].split(" [")[0] if first else "wrk"


def tool_describe(version: str) -> str:
    return f"{version} (1 thread; a Lua script picks a random path per request)"


_WRK_SCRIPT = """
local paths = {%(paths)s}
local headers = {%(headers)s}
local n = #paths
request = function()
  return wrk.format("GET", paths[math.random(n)], headers)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%%d,"duration_us":%%d,"connect":%%d,"read":%%d,"write":%%d,"status":%%d,' ..
    '"timeout":%%d,"p50":%%d,"p95":%%d,"p99":%%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99)))
end
"""


def _lua_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run(*, port: int, paths: list[str], headers: dict, concurrency: int, seconds: float) -> LoadResult:
    script = _WRK_SCRIPT % {
        "paths": ", ".join(_lua_string(p) for p in paths),
        "headers": ", ".join(f"[{_lua_string(k)}] = {_lua_string(v)}" for k, v in headers.items()),
    }
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(script)
        script_path = fh.name
    try:
        completed = subprocess.run(
            ["wrk", "-t1", f"-c{concurrency}", f"-d{max(1, round(seconds))}s", "--timeout", "10s",
             "-s", script_path, f"http://127.0.0.1:{port}"],
            capture_output=True, text=True, timeout=seconds + 60,
        )
    finally:
        Path(script_path).unlink(missing_ok=True)
    line = next((ln for ln in completed.stdout.splitlines() if ln.startswith("BENCH_RESULT ")), None)
    if line is None:
        raise RuntimeError(f"wrk failed ({completed.returncode}): {completed.stdout}\n{completed.stderr}")
    data = json.loads(line.removeprefix("BENCH_RESULT "))
    errors = {k: data[k] for k in ("connect", "read", "write", "status", "timeout") if data[k]}
    # wrk counts a status >= 400 as an error; none of these paths redirects, so that is every non-2xx.
    return LoadResult(requests=data["requests"], seconds=data["duration_us"] / 1e6, p50_ms=data["p50"] / 1000,
                      p95_ms=data["p95"] / 1000, p99_ms=data["p99"] / 1000, errors=errors)
