"""Closed-loop HTTP load: `concurrency` keep-alive connections, each sending its next request as soon as
the previous answer arrived, for a fixed duration. wrk when installed (C, one thread: it leaves the
CPU to the server), else a small asyncio client with raw sockets (no extra package).

Every non-2xx answer and every socket error counts as an error.
"""
import asyncio
import json
import random
import shutil
import subprocess
import tempfile
import time
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

    @property
    def throughput(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


def tool_choose(preference: str) -> str:
    if preference == "auto":
        return "wrk" if shutil.which("wrk") else "python"
    if preference == "wrk" and not shutil.which("wrk"):
        raise SystemExit("--tool wrk: wrk is not installed (apt-get install wrk), use --tool python")
    return preference


def tool_describe(tool: str) -> str:
    if tool == "wrk":
        version = subprocess.run(["wrk", "--version"], capture_output=True, text=True)
        first = (version.stdout or version.stderr).strip().splitlines()
        return (first[0].split(" [")[0] if first else "wrk") + " (1 thread, Lua script picks a random path per request)"
    return "bench.load asyncio client (Python, raw sockets, keep-alive)"


def run(tool: str, *, port: int, paths: list[str], headers: dict, concurrency: int, seconds: float) -> LoadResult:
    if tool == "wrk":
        return _run_wrk(port=port, paths=paths, headers=headers, concurrency=concurrency, seconds=seconds)
    return asyncio.run(_run_python(port=port, paths=paths, headers=headers, concurrency=concurrency,
                                   seconds=seconds))


# --- wrk ---------------------------------------------------------------------------------------------

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


def _run_wrk(*, port, paths, headers, concurrency, seconds) -> LoadResult:
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
    # wrk counts a status >= 400 as an error; our servers never redirect these paths, so that is non-2xx.
    return LoadResult(requests=data["requests"], seconds=data["duration_us"] / 1e6, p50_ms=data["p50"] / 1000,
                      p95_ms=data["p95"] / 1000, p99_ms=data["p99"] / 1000, errors=errors)


# --- Python fallback ---------------------------------------------------------------------------------

async def _run_python(*, port, paths, headers, concurrency, seconds) -> LoadResult:
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    requests = [f"GET {p} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}\r\n".encode() for p in paths]
    samples: list[float] = []
    errors: dict[str, int] = {}
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(*(
        _connection(port, requests, deadline, samples, errors, random.Random(i)) for i in range(concurrency)
    ))
    elapsed = time.perf_counter() - started
    samples.sort()

    def pct(p):
        return samples[min(len(samples) - 1, int(len(samples) * p / 100))] * 1000 if samples else 0.0

    return LoadResult(requests=len(samples) + errors.get("io", 0), seconds=elapsed, p50_ms=pct(50),
                      p95_ms=pct(95), p99_ms=pct(99), errors={k: v for k, v in errors.items() if v})


async def _connection(port, requests, deadline, samples, errors, rng):
    reader = writer = None
    perf = time.perf_counter
    while perf() < deadline:
        request = requests[rng.randrange(len(requests))]
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            t0 = perf()
            async with asyncio.timeout(10):
                writer.write(request)
                status, close = await _read_response(reader)
            samples.append(perf() - t0)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            errors["io"] = errors.get("io", 0) + 1
            close, status = True, 200
        if not 200 <= status < 300:
            errors["status"] = errors.get("status", 0) + 1
        if close and writer is not None:
            writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


async def _read_response(reader) -> tuple[int, bool]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    length, chunked, close = None, False, lines[0].startswith(b"HTTP/1.0")
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value:
            chunked = True
        elif name == b"connection":
            close = value == b"close"
    if chunked:
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    elif length is not None:
        await reader.readexactly(length)
    else:
        await reader.read()
        close = True
    return status, close
