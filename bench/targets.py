"""The HTTP part of `make bench`: choose the targets, start gunicorn, load each target with wrk, in rounds.

Every endpoint is measured beside the bare-Django floor and beside the idiomatic DRF baseline
(bench/drf_baseline.py) of the same data, against servers started once for the whole run. One round
loads every target once, one after the other; `rounds` rounds run back to back, and every ratio is taken
inside one round (the machine's speed drifts between rounds; within one it is shared alike), then the
median of the rounds' ratios is reported.

Servers (same settings, same gunicorn configuration, one per catalogue and search-cache setting):
- `main`: the 100k catalogue; the floor, detail, list, search and the DRF baseline.
- `main_cold`: the 100k catalogue with the search window cache off (every search computes its window).
- `scale`, `scale_cold` (with `--scale`): the 1M catalogue, search only, cache on and off.

The endpoints are probed in-process first (Django test client, same settings and database), so a target
whose endpoint does not answer is reported as not measured instead of flooding the server with 4xx.
"""
import http.client
import json
import os
import statistics
import subprocess
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote, urlsplit

from bench import load, seed, words
from bench.cpu import CpuMeter, one_worker_idle, redis_server_pid
from bench.drf_baseline import DRF_PREFIX
from bench.load import LoadResult
from bench.machinecost import machine_costs, machine_costs_line
from bench.report import machine
from bench.server import GunicornServer, ServerConfig
from bench.urls import FLOOR_PATH, FLOOR_WAITS_PREFIX
from bench.views import synthetic_payload

BENCH_USERNAME = "benchclient"
BENCH_APP_CLIENT_ID = "thingyard-bench-app"
DETAIL_IDS = 2000
ZIPF_DRAWS = 20000  # the Zipf target's request paths (wrk picks among them uniformly: Zipf over the Things)
LIST_PER_PAGE = 30
# Environment of the servers whose search window cache is off (bench.settings reads it).
COLD_ENV = {"BENCH_SEARCH_WINDOW_CACHE": "0"}
# ... and of the `main_cold` server, whose request-path caches (Thing bodies, tokens) are off too.
MAIN_COLD_ENV = {**COLD_ENV, "BENCH_REQUEST_CACHES": "0"}
# A run whose connections all landed on one gunicorn worker is measured again, at most this many times.
IDLE_WORKER_RERUNS = 3


@dataclass
class Target:
    """One HTTP target: its results per round, or why it was not measured (skipped)."""

    key: str
    label: str
    server: str
    paths: list
    results: list = field(default_factory=list)  # LoadResult per round
    body_bytes: int = 0
    skipped: str = ""
    writes: list = field(default_factory=list)  # writes per second during each round (detail_mixed)
    reruns: int = 0  # runs measured again because a gunicorn worker got no connection (bench.cpu)

    def median(self, attribute: str) -> float | None:
        values = [getattr(r, attribute) for r in self.results]
        return statistics.median(values) if values else None

    @property
    def requests(self) -> int:
        return sum(r.requests for r in self.results)

    @property
    def errors(self) -> dict:
        total: dict = {}
        for r in self.results:
            for k, v in r.errors.items():
                total[k] = total.get(k, 0) + v
        return total


def _database_name(env: dict) -> str:
    """The database a bench server's env points it at (its own DATABASE_URL, else the bench's)."""
    url = env.get("DATABASE_URL") or os.environ.get("DATABASE_URL", "")
    return urlsplit(url).path.lstrip("/") or seed.DB_NAME


def bench_client_token() -> str:
    """A user, an approved app and a long-lived access token, as apps.demo.services.demo_seed makes them."""
    import hashlib

    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from django.utils.crypto import salted_hmac
    from oauth2_provider.models import get_access_token_model, get_application_model

    user, _ = get_user_model().objects.get_or_create(
        username=BENCH_USERNAME, defaults={"email": "bench@example.com", "first_name": "Bench"}
    )
    Application = get_application_model()
    app = Application.objects.filter(client_id=BENCH_APP_CLIENT_ID).first()
    if app is None:
        app = Application.objects.create(
            client_id=BENCH_APP_CLIENT_ID,
            client_secret="thingyard-bench-secret",
            name="Thingyard Bench",
            app_type=Application.AppType.WEB,
            redirect_uris="http://127.0.0.1/callback",
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            user=user,
            approval_state=Application.Approval.APPROVED,
            approval_reason="make bench",
            reviewed_at=timezone.now(),
        )
    # Tokens are stored as their checksum only (docs/security.md, issue 22 finding 6): an existing row
    # cannot give its token back, so the bench's token is derived from SECRET_KEY (as the demo's is) and
    # found again by its checksum.
    AccessToken = get_access_token_model()
    plain = salted_hmac("bench.targets.bench_client_token", BENCH_USERNAME, algorithm="sha256").hexdigest()[:32]
    checksum = hashlib.sha256(plain.encode()).hexdigest()
    token = AccessToken.objects.filter(token_checksum=checksum).first()
    if token is not None and (token.user_id != user.pk or token.expires <= timezone.now() + timedelta(days=1)):
        token.delete()
        token = None
    if token is None:
        AccessToken.objects.create(user=user, application=app, token=plain,
                                   expires=timezone.now() + timedelta(days=365), scope="read write")
    return plain


def _probe(client, path: str):
    response = client.get(path)
    body = response.content
    try:
        data = json.loads(body) if body else None
    except ValueError:
        data = None
    return response.status_code, body, data


def search_paths(prefix: str = "/search/") -> list[str]:
    return [f"{prefix}{quote(t)}/" for t in words.SEARCH_TERMS]


def catalog_paths(thing_ids: list[int]) -> list[str]:
    """The catalogue's lists beside /newest/: the category list, the first 20 categories' and the 20 largest
    tags' Things, the same tags' searches (/search/{tag}/tag), 50 Things' tags, the tag list and /popular/
    (every path once, so each kind weighs by its number of paths)."""
    from apps.things.models import Category, TagCount

    slugs = list(Category.objects.order_by("pk").values_list("slug", flat=True)[:20])
    tags = list(TagCount.objects.order_by("-shown", "tag_id").values_list("tag__name", flat=True)[:20])
    return (
        ["/categories/", f"/tags/?per_page={LIST_PER_PAGE}", f"/popular/?per_page={LIST_PER_PAGE}"]
        + [f"/categories/{slug}/things?per_page={LIST_PER_PAGE}" for slug in slugs]
        + [f"/tags/{quote(name)}/things?per_page={LIST_PER_PAGE}" for name in tags]
        + [f"/search/{quote(name)}/tag?per_page={LIST_PER_PAGE}" for name in tags]
        + [f"/things/{i}/tags" for i in thing_ids[:50]]
    )


def targets_choose(*, token: str, workdir: Path, scale: bool) -> tuple[dict[str, Target], Path]:
    """Every target with its request paths, and the floor's payload file sized like a Thing."""
    from django.test import Client

    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    sample = seed.catalogue_sample(count=DETAIL_IDS)
    ids = sample["thing_ids"]
    drf_search = [f"{DRF_PREFIX}search/{quote(t)}/" for t in words.SEARCH_TERMS]
    targets = {
        "floor": Target("floor", "floor (plain Django JSON view)", "main", [FLOOR_PATH]),
        # Issue 24: the floor with the two round trips every API read makes (bench.views.floor_waits).
        "floor_waits": Target("floor_waits", "floor + a Redis and a PostgreSQL wait", "main",
                              [f"{FLOOR_WAITS_PREFIX}{i}/" for i in ids]),
        "detail": Target("detail", "GET /things/{id}/", "main", [f"/things/{i}/" for i in ids]),
        "detail_drf": Target("detail_drf", "DRF baseline: detail", "main", [f"{DRF_PREFIX}{i}/" for i in ids]),
        "list": Target("list", f"{LIST_PER_PAGE}-item list", "main", []),
        "list_drf": Target("list_drf", f"DRF baseline: {LIST_PER_PAGE}-item list", "main",
                           [f"{DRF_PREFIX}?page_size={LIST_PER_PAGE}"]),
        "search": Target("search", "GET /search/{term}/ (100k)", "main", search_paths()),
        "search_drf": Target("search_drf", "DRF baseline: search (100k)", "main", drf_search),
        "search_cold": Target("search_cold", "search, window cache off (100k)", "main_cold", search_paths()),
        "detail_cold": Target("detail_cold", "detail, caches off", "main_cold", [f"/things/{i}/" for i in ids]),
        # Issue 24: reads as real people make them, Zipf-distributed over the whole catalogue (a hot head
        # and a long tail of first reads), beside the warm working set above and the caches-off figure.
        "detail_zipf": Target("detail_zipf", "detail, Zipf over the catalogue", "main",
                              [f"/things/{i}/" for i in seed.catalogue_zipf(count=ZIPF_DRAWS)]),
        "list_cold": Target("list_cold", f"{LIST_PER_PAGE}-item list, caches off", "main_cold", []),
        # ... and the same Zipf reads while Things change under them (likes and unlikes through the
        # services, WRITES_PER_SECOND), on a server of its own: every change moves a Thing's version, so
        # its next read is built afresh.
        "detail_mixed": Target("detail_mixed", "detail, Zipf + writes", "main_mixed",
                               [f"/things/{i}/" for i in seed.catalogue_zipf(count=ZIPF_DRAWS)]),
    }
    # Issue 24, beyond the bench's own sample: the catalogue's other lists as first reads (their counts,
    # and /popular/'s ranking), each request a random one of these paths.
    targets["catalog_cold"] = Target("catalog_cold", "catalogue lists, caches off", "main_cold",
                                     catalog_paths(ids))
    if scale:
        targets["search_1m"] = Target("search_1m", "GET /search/{term}/ (1M)", "scale", search_paths())
        targets["search_1m_cold"] = Target("search_1m_cold", "search, window cache off (1M)", "scale_cold",
                                           search_paths())

    detail = targets["detail"]
    bodies = []
    for path in detail.paths[:21]:
        status, body, data = _probe(client, path)
        if status != 200 or not isinstance(data, dict):
            detail.skipped = f"{path} answered {status}"
            break
        bodies.append(body)
    payload_path = workdir / "floor.json"
    if bodies and not detail.skipped:
        # The floor replays the median-sized real detail body: same bytes, same JSON shape.
        median = sorted(bodies, key=len)[len(bodies) // 2]
        payload_path.write_bytes(median)
        detail.body_bytes = int(statistics.median(len(b) for b in bodies))
    else:
        payload_path.write_text(json.dumps(synthetic_payload(2500), separators=(",", ":")))

    lst = targets["list"]
    candidates = [f"/newest/?per_page={LIST_PER_PAGE}"]
    if sample["creator"]:
        candidates.append(f"/users/{sample['creator']}/things?per_page={LIST_PER_PAGE}")
    answers = []
    for path in candidates:
        status, body, data = _probe(client, path)
        if status == 200 and isinstance(data, list) and len(data) == LIST_PER_PAGE:
            lst.paths, lst.label = [path], f"{LIST_PER_PAGE}-item list {path.split('?')[0]}"
            break
        answers.append(f"{path.split('?')[0]} {status}")
    else:
        lst.skipped = "no list endpoint answered 30 items (" + ", ".join(answers) + ")"
    targets["list_cold"].paths, targets["list_cold"].skipped = lst.paths, lst.skipped
    targets["detail_cold"].skipped = detail.skipped
    targets["detail_zipf"].skipped = detail.skipped or ("" if targets["detail_zipf"].paths else "no Things")
    targets["detail_mixed"].skipped = targets["detail_zipf"].skipped

    for key in ("detail_drf", "list_drf", "search", "search_drf", "catalog_cold"):
        target = targets[key]
        statuses = {path: _probe(client, path)[0] for path in target.paths[:5]}
        bad = {p: s for p, s in statuses.items() if s != 200}
        if bad:
            target.skipped = "probe: " + ", ".join(f"{p} {s}" for p, s in bad.items())
    targets["search_cold"].skipped = targets["search"].skipped
    return targets, payload_path


WRITES_PER_SECOND = 25


class Writer:
    """Changes Things while a target's reads run: the bench user likes, then unlikes, Things drawn from
    the target's own Zipf paths (a hot Thing changes more often, as it would), through the services
    (apps.things.services.thing_like / thing_unlike: the like count moves the Thing's version)."""

    def __init__(self, paths: list[str], rate: float = WRITES_PER_SECOND):
        import threading

        self.ids = [int(p.strip("/").split("/")[-1]) for p in paths]
        self.rate = rate
        self.done = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import random
        import time

        from django.contrib.auth import get_user_model
        from django.db import connection

        from apps.things import services
        from apps.things.models import Thing

        user = get_user_model().objects.get(username=BENCH_USERNAME)
        draw = random.Random(24)
        liked: set[int] = set()
        started = time.monotonic()
        try:
            while not self._stop.is_set():
                thing = Thing.objects.filter(pk=draw.choice(self.ids)).first()
                if thing is not None and thing.creator_id != user.pk:
                    if thing.pk in liked:
                        services.thing_unlike(user=user, thing=thing)
                        liked.discard(thing.pk)
                    else:
                        services.thing_like(user=user, thing=thing)
                        liked.add(thing.pk)
                    self.done += 1
                wait = started + self.done / self.rate - time.monotonic()
                if wait > 0:
                    self._stop.wait(wait)
        finally:
            for thing in Thing.objects.filter(pk__in=liked):  # the catalogue as it was (a shared database)
                services.thing_unlike(user=user, thing=thing)
            connection.close()


def _warm(port: int, target: Target, token: str) -> None:
    """Read every path of `target` once (4 keep-alive connections): the Thing bodies are then cached,
    as they are for a Thing read before (the rounds measure that steady state; `detail, caches off`
    measures the first read)."""
    if target.skipped:
        return
    import threading
    import time

    started = time.monotonic()
    paths = list(target.paths)

    def worker(share):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            for path in share:
                conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
                conn.getresponse().read()
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(paths[n::4],)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"  warmed {len(paths)} detail paths in {time.monotonic() - started:.1f} s", flush=True)


def _body_size(port: int, path: str, token: str) -> tuple[int, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        return response.status, len(response.read())
    finally:
        conn.close()


def server_versions() -> dict:
    import redis
    from django.conf import settings
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        postgres = "PostgreSQL " + cursor.fetchone()[0].split()[0]
        settings_shown = {}
        for name in ("shared_buffers", "effective_cache_size", "work_mem", "random_page_cost", "jit"):
            cursor.execute(f"SHOW {name}")
            settings_shown[name] = cursor.fetchone()[0]
    try:
        info: dict = redis.Redis.from_url(settings.REDIS_URL).info("server")  # type: ignore[assignment]
        redis_version = info["redis_version"]
    except redis.RedisError:
        redis_version = "?"
    return {"postgres": postgres, "redis": redis_version,
            "postgres_settings": ", ".join(f"{k} {v}" for k, v in settings_shown.items())}


def scale_prepare(*, base_url: str, reseed: bool) -> dict:
    """Seed (or reuse) the 1M catalogue in a subprocess; its result, token and database URL."""
    url = seed.database_url(base_url, seed.SCALE_DB_NAME)
    command = [sys.executable, "-m", "bench.seed", "--database", seed.SCALE_DB_NAME,
               "--things", str(seed.SCALE_THINGS), "--token"] + (["--reseed"] if reseed else [])
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    for line in done.stdout.splitlines():
        if line.startswith("  seed:"):
            print(line, flush=True)
    result_line = next((ln for ln in done.stdout.splitlines() if ln.startswith("SEED_RESULT ")), None)
    if done.returncode != 0 or result_line is None:
        raise RuntimeError(f"seeding {seed.SCALE_DB_NAME} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    data = json.loads(result_line.removeprefix("SEED_RESULT "))
    data["database_url"] = url
    return data


def http_run(*, config: ServerConfig, concurrency: int, duration: float, warmup: float, rounds: int,
             workdir: Path, scale: dict | None) -> tuple[dict[str, Target], dict]:
    """Start the servers, run `rounds` rounds over every target, stop the servers."""
    tool = load.tool_describe(load.wrk_ensure())
    token = bench_client_token()
    targets, payload_path = targets_choose(token=token, workdir=workdir, scale=scale is not None)
    settings = {
        "server": config.describe(),
        "tool": tool,
        "concurrency": concurrency,
        "duration": duration,
        "warmup": warmup,
        "rounds": rounds,
        "detail_ids": len(targets["detail"].paths),
        "search_terms": words.SEARCH_TERMS,
        **server_versions(),
    }
    print(f"== HTTP: {settings['server']}; {settings['tool']}; {concurrency} connections; "
          f"{rounds} rounds of {warmup:g} s warm-up + {duration:g} s per target")
    tokens = {"main": token, "main_cold": token, "main_mixed": token}
    envs = {"main": {}, "main_cold": dict(MAIN_COLD_ENV), "main_mixed": {}}
    if scale is not None:
        tokens["scale"] = tokens["scale_cold"] = scale["token"]
        envs["scale"] = {"DATABASE_URL": scale["database_url"]}
        envs["scale_cold"] = {"DATABASE_URL": scale["database_url"], **COLD_ENV}
    # Each server its own cache prefix (issue 24): servers sharing the bench's Redis never answer from each
    # other's entries (the 1M search once served the 100k server's cached body).
    envs = {name: {**env, "CACHE_KEY_PREFIX": f"bench-{name}"} for name, env in envs.items()}
    with ExitStack() as stack:
        servers = {
            name: stack.enter_context(GunicornServer(config, env=env, floor_payload=payload_path,
                                                     log_path=workdir / f"gunicorn-{name}.log"))
            for name, env in envs.items()
        }
        settings["machine"] = machine()
        redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
        redis_pid = redis_server_pid(redis_url)
        costs = machine_costs(redis_url=redis_url, redis_pid=redis_pid)
        settings["machine"]["costs"] = costs
        print(f"  this machine: {machine_costs_line(costs)}", flush=True)
        meters = {
            name: CpuMeter(server_pgid=server.process.pid, database=_database_name(envs[name]), redis_pid=redis_pid)
            for name, server in servers.items() if server.process is not None
        }
        try:
            for target in targets.values():
                if target.skipped:
                    print(f"  {target.label:<36} not measured: {target.skipped}")
                    continue
                server = servers[target.server]
                status, size = _body_size(server.port, target.paths[0], tokens[target.server])
                if status != 200:
                    target.skipped = f"{target.paths[0]} answered {status} under gunicorn"
                    print(f"  {target.label:<36} not measured: {target.skipped}")
                    continue
                if not target.body_bytes:
                    target.body_bytes = size
            for round_no in range(1, rounds + 1):
                print(f"-- round {round_no}/{rounds}", flush=True)
                for target in targets.values():
                    if target.skipped:
                        continue
                    if target.key == "detail":
                        # Every round: a body lives THING_BODY_CACHE_SECONDS (600 s), and a run of more
                        # than three rounds outlives the bodies one warm-up cached.
                        _warm(servers["main"].port, target, tokens["main"])
                    server = servers[target.server]
                    headers = {"Authorization": f"Bearer {tokens[target.server]}"}
                    writer = Writer(target.paths) if target.key == "detail_mixed" else None
                    if writer is not None:
                        writer.start()
                    try:
                        load.run(port=server.port, paths=target.paths, headers=headers,
                                 concurrency=concurrency, seconds=warmup)
                        meter = meters.get(target.server)
                        for attempt in range(1 + IDLE_WORKER_RERUNS):
                            measured_from = writer.done if writer is not None else 0
                            if meter is not None:
                                meter.start()
                            r: LoadResult = load.run(port=server.port, paths=target.paths, headers=headers,
                                                     concurrency=concurrency, seconds=duration)
                            r.cpu_seconds = meter.stop() if meter is not None else None
                            if meter is None or attempt == IDLE_WORKER_RERUNS or not one_worker_idle(
                                meter.worker_seconds
                            ):
                                break
                            target.reruns += 1
                            print(f"  {target.label:<36} {r.throughput:7.0f} req/s with every connection on one "
                                  "worker (bench.cpu.one_worker_idle): measured again", flush=True)
                    finally:
                        if writer is not None:
                            writer.stop()
                    if writer is not None:
                        target.writes.append((writer.done - measured_from) / duration)
                    target.results.append(r)
                    cpu = f"  cpu {r.cpu_ms_per_request:.2f} ms/req" if r.cpu_ms_per_request else ""
                    print(f"  {target.label:<36} {r.throughput:7.0f} req/s{cpu}  p50 {r.p50_ms:6.1f}  "
                          f"p95 {r.p95_ms:6.1f}  p99 {r.p99_ms:6.1f} ms  errors {r.error_count}"
                          + (f"  writes {target.writes[-1]:.1f}/s" if writer is not None else ""), flush=True)
        except BaseException:
            for name, server in servers.items():
                tail = server.log_tail()
                if tail:
                    print(f"gunicorn {name} log (tail):\n{tail}")
            raise
    return targets, settings
