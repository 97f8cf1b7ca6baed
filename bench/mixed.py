"""`make load`: a mixed workload against gunicorn from a second process, then exactness checks.

1. A dedicated database (`thingyard_load` on DATABASE_URL's server, migrated; the bench catalogue of
   `--things` Things by bulk COPY, reused when present) and a Redis database of its own (`--redis-url`,
   db 11 by default: rate limit, cache and Celery broker). moto's S3 server on a free loopback port.
2. The players: `--users` users of a new approved app (a new app per run, so every rate-limit bucket
   starts empty), 20 published Things to like (owned by someone else, their likes reset), one draft
   Thing per user to upload to (its files reset), and one more user for the rate-limit probe.
3. gunicorn (`--workers` sync workers, the production settings) and one Celery worker (processing).
4. The load: `python -m bench.mixed_driver` in a second process, for `--duration` seconds (mix below).
5. The checks, against the database: every like target's `like_count` equals its Like rows and what
   the generator expects from its own successful likes and unlikes; every upload Thing's `file_count`
   equals its file rows and the finalizes the generator saw succeed, and each of those files went live;
   the probe was admitted exactly 300 times in the window where it was refused; no 5xx, no connection
   error, no unexpected status. Throughput and p50/p99 per operation are printed and written to
   docs/load.md. The exit status is 1 when a check fails.

  python -m bench.mixed [--duration 30] [--workers 4] [--concurrency 8] [--users 200] [--things 5000]
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DB_NAME = "thingyard_load"
LIKE_TARGETS = 20
APP_NAME = "Thingyard load run"
OWNER = "load-owner"
USER_PREFIX = "load-user-"
PROBE_PREFIX = "load-probe-"
# Weights of the operations each simulated user picks from (an upload is three requests).
MIX = {"thing": 30, "list": 15, "search": 15, "like": 32, "upload": 8}
# Threads sharing the probe user's token: concurrent requests are the hard case for an exact limit.
PROBE_THREADS = 3


@dataclass
class Check:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"  {'ok  ' if self.ok else 'FAIL'} {self.name}: {self.detail}"


def _arguments():
    parser = argparse.ArgumentParser(prog="python -m bench.mixed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of load")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--concurrency", type=int, default=8, help="generator threads (one request each)")
    parser.add_argument("--users", type=int, default=200, help="users with their own token")
    parser.add_argument("--things", type=int, default=5000, help="Things in the catalogue")
    parser.add_argument("--redis-url", default=os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/11"))
    parser.add_argument("--no-docs", action="store_true", help="do not rewrite docs/load.md")
    return parser.parse_args()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _database_url() -> str:
    import psycopg

    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/thingyard")
    server = base.rsplit("/", 1)[0]
    with psycopg.connect(server + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)).fetchone():
            conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    return f"{server}/{DB_NAME}"


# --- Players ---------------------------------------------------------------------------------------


def players_prepare(*, users: int, api_url: str) -> dict:
    """Users, a new app with fresh tokens, like targets with no likes, upload Things with no files."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone
    from oauth2_provider.models import get_access_token_model, get_application_model

    from apps.oauth.tokens import generate_token
    from apps.things.models import Like, Thing
    from apps.uploads.models import Image, ThingFile, Upload

    User = get_user_model()
    Application = get_application_model()
    AccessToken = get_access_token_model()
    with transaction.atomic():
        owner, _ = User.objects.get_or_create(username=OWNER, defaults={"email": "load-owner@example.com"})
        names = [f"{USER_PREFIX}{i:04d}" for i in range(users)]
        User.objects.bulk_create([User(username=n, email=f"{n}@example.com", password="!") for n in names],
                                 ignore_conflicts=True)
        members = list(User.objects.filter(username__in=names).order_by("username"))
        probe = User.objects.create(username=f"{PROBE_PREFIX}{int(time.time())}", password="!")

        likes = list(Thing.objects.filter(creator=owner, name__startswith="Load like target").order_by("id"))
        for i in range(len(likes), LIKE_TARGETS):
            likes.append(Thing.objects.create(
                creator=owner, name=f"Load like target {i}", description="Liked a lot.", is_published=True,
                published_at=timezone.now(),
            ))
        like_ids = [t.pk for t in likes[:LIKE_TARGETS]]
        Like.objects.filter(thing_id__in=like_ids).delete()
        Thing.objects.filter(pk__in=like_ids).update(like_count=0)

        existing = dict(Thing.objects.filter(creator__in=members, name="Load upload target")
                        .values_list("creator_id", "pk"))
        Thing.objects.bulk_create([Thing(creator=u, name="Load upload target", description="Uploads.")
                                   for u in members if u.pk not in existing])
        uploads = dict(Thing.objects.filter(creator__in=members, name="Load upload target")
                       .values_list("creator_id", "pk"))
        ThingFile.objects.filter(thing_id__in=uploads.values()).delete()
        Image.objects.filter(thing_id__in=uploads.values()).delete()
        Upload.objects.filter(owner__in=members).delete()
        # No file nor image left: no picture either (the services keep these pointers; this reset is not one).
        Thing.objects.filter(pk__in=uploads.values()).update(
            file_count=0, default_image=None, file_thumbnail_key=""
        )

        # A new app per run: the rate limit counts per (app, user), so every bucket starts empty.
        Application.objects.filter(name=APP_NAME).delete()
        app = Application.objects.create(
            name=APP_NAME, app_type=Application.AppType.WEB, redirect_uris=f"{api_url}/callback",
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            user=owner, approval_state=Application.Approval.APPROVED, approval_reason="make load",
            reviewed_at=timezone.now(),
        )
        expires = timezone.now() + timedelta(days=1)
        tokens = {u.pk: generate_token() for u in [*members, probe]}
        AccessToken.objects.bulk_create([
            AccessToken(user_id=uid, application=app, token=token, expires=expires, scope="read write")
            for uid, token in tokens.items()
        ])
    User.objects.filter(username__startswith=PROBE_PREFIX).exclude(pk=probe.pk).delete()
    return {
        "users": [{"id": u.pk, "token": tokens[u.pk], "upload_thing": uploads[u.pk]} for u in members],
        "probe_token": tokens[probe.pk],
        "like_ids": like_ids,
        "upload_ids": sorted(uploads.values()),
    }


def catalogue_paths() -> dict:
    from bench import seed, words

    sample = seed.catalogue_sample(count=500)
    lists = ["/newest/?page={page}", "/popular/?page={page}"]
    if sample["creator"]:
        lists.append(f"/users/{sample['creator']}/things?page={{page}}")
    if sample["category"]:
        lists.append(f"/categories/{sample['category']}/things?page={{page}}")
    return {"read_ids": sample["thing_ids"], "list_paths": lists, "search_terms": list(words.SEARCH_TERMS)}


# --- Servers ---------------------------------------------------------------------------------------


def _start(command: list[str], *, env: dict, log: Path) -> subprocess.Popen:
    handle = open(log, "ab")
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=handle, stderr=handle, start_new_session=True)


def _stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)


def _wait_http(port: int, process: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    import http.client

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited; see {log}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"gunicorn not ready in {timeout:.0f} s; see {log}")


def _wait_log(text: str, process: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"worker exited; see {log}")
        if text in log.read_text(errors="replace"):
            return
        time.sleep(0.2)
    raise RuntimeError(f"worker not ready in {timeout:.0f} s; see {log}")


# --- Checks ----------------------------------------------------------------------------------------


def checks_run(*, plan: dict, results: dict, settle_seconds: float = 60) -> tuple[list[Check], dict]:
    from django.db.models import Count

    from apps.things.models import Like, Thing
    from apps.uploads.models import ProcessingStatus, ThingFile, Upload

    checks: list[Check] = []
    facts: dict = {}

    expected_likes = {t: 0 for t in plan["like_ids"]}
    for key, liked in results["liked"].items():
        thing = int(key.split(":")[1])
        expected_likes[thing] += bool(liked)
    counts = dict(Thing.objects.filter(pk__in=plan["like_ids"]).values_list("pk", "like_count"))
    rows = dict(Like.objects.filter(thing_id__in=plan["like_ids"]).values("thing_id")
                .annotate(n=Count("id")).values_list("thing_id", "n"))
    wrong = [t for t in plan["like_ids"] if not (counts[t] == rows.get(t, 0) == expected_likes[t])]
    facts["likes_final"] = sum(expected_likes.values())
    checks.append(Check(
        "likes exact", not wrong,
        f"{len(plan['like_ids'])} Things, {facts['likes_final']} likes standing; like_count = Like rows "
        f"= the generator's expectation" + (f"; mismatched: {wrong[:5]}" if wrong else ""),
    ))

    expected_files = {t: results["uploads"].get(str(t), 0) for t in plan["upload_ids"]}
    file_counts = dict(Thing.objects.filter(pk__in=plan["upload_ids"]).values_list("pk", "file_count"))
    file_rows = dict(ThingFile.objects.filter(thing_id__in=plan["upload_ids"]).values("thing_id")
                     .annotate(n=Count("id")).values_list("thing_id", "n"))
    wrong = [t for t in plan["upload_ids"]
             if not (file_counts[t] == file_rows.get(t, 0) == expected_files[t])]
    finalized = Upload.objects.filter(owner__username__startswith=USER_PREFIX, status="finalized").count()
    facts["files"] = sum(expected_files.values())
    checks.append(Check(
        "file counts exact", not wrong and finalized == facts["files"],
        f"{facts['files']} finalized uploads = file rows = file_count sums = finalized Upload rows "
        f"({finalized})" + (f"; mismatched Things: {wrong[:5]}" if wrong else ""),
    ))

    deadline = time.monotonic() + settle_seconds
    files = ThingFile.objects.filter(thing_id__in=plan["upload_ids"])
    while files.filter(status=ProcessingStatus.PROCESSING).exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    live = files.filter(status=ProcessingStatus.LIVE).count()
    checks.append(Check("uploads processed", live == facts["files"],
                        f"{live} of {facts['files']} files live within {settle_seconds:.0f} s of the end"))

    windows = results["probe"]
    refused_windows = {reset: w for reset, w in windows.items() if w["refused"]}
    limited = [w for w in refused_windows.values()
               if w["admitted"] == 300 and w["refusals_well_formed"] == w["refused"]
               and w["remaining_each_once"] and w["lowest_remaining"] == 0]
    over = [w for w in windows.values() if w["admitted"] > 300]
    probe_ok = bool(refused_windows) and len(limited) == len(refused_windows) and not over
    detail = "; ".join(
        f"window ending {datetime.fromtimestamp(int(r), UTC):%H:%M:%S}: {w['admitted']} admitted (Remaining "
        f"{'299…0 each once' if w['remaining_each_once'] else 'NOT each once'}), {w['refused']} refused "
        f"({w['refusals_well_formed']} with type RATE_LIMITED and Retry-After)"
        for r, w in windows.items()
    )
    facts["rate_limit"] = windows
    checks.append(Check("rate limit exact", probe_ok, detail or "the probe sent nothing"))

    statuses = results["statuses"]
    server_errors = sum(n for s in statuses.values() for code, n in s.items()
                        if code.isdigit() and int(code) >= 500)
    connection_errors = sum(s.get("connection error", 0) for s in statuses.values())
    unexpected = len(results["unexpected"])
    facts.update(server_errors=server_errors, connection_errors=connection_errors, unexpected=unexpected)
    checks.append(Check(
        "no errors", server_errors == 0 and connection_errors == 0 and unexpected == 0,
        f"{server_errors} 5xx, {connection_errors} connection errors, {unexpected} unexpected answers"
        + (f"; first: {results['unexpected'][:3]}" if unexpected else ""),
    ))
    return checks, facts


# --- Report ----------------------------------------------------------------------------------------


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary_rows(results: dict) -> list[dict]:
    seconds = results["seconds"]
    rows = []
    for op, latencies in sorted(results["latencies_ms"].items(), key=lambda kv: -len(kv[1])):
        statuses = results["statuses"].get(op, {})
        rows.append({
            "op": op,
            "count": len(latencies),
            "per_s": len(latencies) / seconds,
            "p50": statistics.median(latencies) if latencies else 0.0,
            "p99": _percentile(latencies, 0.99),
            "statuses": ", ".join(f"{code}×{n}" for code, n in sorted(statuses.items())),
        })
    return rows


OP_NAMES = {
    "thing": "GET /things/{id}/",
    "list": "lists (newest, popular, a creator's, a category's; pages 1-10)",
    "search": "GET /search/{term}/",
    "like": "POST /things/{id}/likes",
    "unlike": "DELETE /things/{id}/likes",
    "upload_start": "POST /things/{id}/files",
    "store_post": "POST to the store (moto), not the API",
    "finalize": "POST /files/{id}/finalize",
    "rate_limit_probe": "GET /users/me by the probe user",
}


def _share(users: int, threads: int) -> str:
    low, high = users // threads, -(-users // threads)
    return str(low) if low == high else f"{low}-{high}"


def doc_write(*, args, rows, checks, results, facts, info, seed_line: str) -> None:
    api_requests = sum(r["count"] for r in rows if r["op"] != "store_post")
    lines = [
        "# Load run",
        "",
        "Generated by `make load` (`python -m bench.mixed`; its docstring describes the method). Do not "
        "edit by hand.",
        "",
        f"- Run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {results['seconds']:.1f} s of load.",
        f"- Server: gunicorn {info['gunicorn']}, {args.workers} sync workers, production settings (DEBUG "
        "off, persistent connections, Redis rate limit, cache and broker), one Celery worker (solo) for "
        "processing, moto S3 on loopback; PostgreSQL and Redis on the same machine.",
        f"- Generator: a second process, {args.concurrency} threads, each driving its own "
        f"{_share(args.users, args.concurrency)} users one request at a time, "
        f"plus {PROBE_THREADS} threads driving one fresh user past the rate limit together. Mix per pick: "
        + ", ".join(f"{k} {v}%" for k, v in MIX.items()) + " (an upload is start, store POST, finalize).",
        f"- Data: {seed_line}.",
        f"- Machine: {info['cpus']} CPUs ({info['cpu']}), {info['memory']}, {info['os']}, Python "
        f"{info['python']}; load average at the end {info['loadavg']} (the machine is shared).",
        "",
        f"**{api_requests} API requests in {results['seconds']:.1f} s: "
        f"{api_requests / results['seconds']:.0f} requests/s**, {facts['server_errors']} server errors, "
        f"{facts['connection_errors']} connection errors.",
        "",
        "| operation | requests | per s | p50 ms | p99 ms | statuses |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        lines.append(f"| {OP_NAMES.get(row['op'], row['op'])} | {row['count']} | {row['per_s']:.1f} | "
                     f"{row['p50']:.1f} | {row['p99']:.1f} | {row['statuses']} |")
    lines += ["", "Search answers 404 when nothing matches (spec §7); those count as answers, not errors.",
              "", "## Checks", ""]
    lines += [f"- {'✅' if c.ok else '❌'} **{c.name}**: {c.detail}" for c in checks]
    lines += [
        "",
        "Latencies are measured by the generator (request sent to last byte read) on a machine shared with "
        "the server and the database, so they include CPU contention; they compare runs and are not "
        "targets. The probe may finish after the mixed load; its requests count in the table, not in the "
        "throughput's seconds.",
        "",
    ]
    (REPO / "docs" / "load.md").write_text("\n".join(lines))


# --- Main ------------------------------------------------------------------------------------------


def _exit_on_sigterm(signum, frame):
    raise SystemExit(128 + signum)


def main() -> int:
    args = _arguments()
    signal.signal(signal.SIGTERM, _exit_on_sigterm)  # unwinds like Ctrl-C: the `finally` stops the servers
    port = _free_port()
    s3_port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
        "DJANGO_SETTINGS_MODULE": "bench.load_settings",
        "DJANGO_SECRET_KEY": "make-load-" + "s" * 40,
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": _database_url(),
        "REDIS_URL": args.redis_url,
        "S3_ENDPOINT_URL": f"http://127.0.0.1:{s3_port}",
        "THINGYARD_API_URL": f"http://127.0.0.1:{port}",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)

    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=s3_port, verbose=False)
    moto.start()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from bench import seed as seeding
    from bench.report import machine
    from apps.uploads import store

    store.client().create_bucket(Bucket=settings.S3_BUCKET)
    print(f"== database {DB_NAME}: migrate, catalogue of {args.things:,} Things")
    call_command("migrate", verbosity=0)
    catalogue = seeding.catalogue_ensure(things=args.things)
    seed_line = (f"the bench catalogue: {args.things:,} Things by {seeding.USER_COUNT} creators, "
                 f"{seeding.TAG_COUNT} tags, search vectors" + (" (reused)" if catalogue.reused else ""))
    plan = {
        **players_prepare(users=args.users, api_url=env["THINGYARD_API_URL"]),
        **catalogue_paths(),
        "host": "127.0.0.1", "port": port, "duration": args.duration, "concurrency": args.concurrency,
        "mix": MIX, "probe_refusals": 25, "probe_threads": PROBE_THREADS, "probe_max_seconds": 180,
    }
    from django.db import connections

    connections.close_all()

    workdir = Path(tempfile.mkdtemp(prefix="thingyard-load-"))
    web = worker = None
    try:
        print(f"== gunicorn -w {args.workers} on :{port}, a Celery worker; logs in {workdir}")
        web = _start([sys.executable, "-m", "gunicorn", "config.wsgi:application",
                      "--bind", f"127.0.0.1:{port}", "--workers", str(args.workers), "--worker-class", "sync",
                      "--backlog", "2048", "--log-level", "warning", "--chdir", str(REPO)],
                     env=env, log=workdir / "web.log")
        worker = _start([sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo",
                         "-n", f"load-{port}@localhost", "-Q", "celery,webhooks,processing", "--without-gossip", "--without-mingle",
                         "--loglevel=INFO"], env=env, log=workdir / "worker.log")
        _wait_http(port, web, workdir / "web.log")
        _wait_log("ready.", worker, workdir / "worker.log")
        (workdir / "plan.json").write_text(json.dumps(plan))
        print(f"== load: {args.duration:.0f} s, {args.concurrency} threads in a second process, "
              f"{args.users} users")
        subprocess.run([sys.executable, "-m", "bench.mixed_driver", str(workdir / "plan.json"),
                        str(workdir / "results.json")], cwd=REPO, env=env, check=True,
                       timeout=args.duration + 180)
        results = json.loads((workdir / "results.json").read_text())
        print("== checks (the database against the generator's own record)")
        checks, facts = checks_run(plan=plan, results=results)
    finally:
        _stop(web)
        _stop(worker)
        moto.stop()

    rows = summary_rows(results)
    api_requests = sum(r["count"] for r in rows if r["op"] != "store_post")
    per_second = api_requests / results["seconds"]
    print(f"{api_requests} API requests in {results['seconds']:.1f} s = {per_second:.0f}/s")
    print(f"  {'operation':<18} {'count':>7} {'per s':>7} {'p50 ms':>8} {'p99 ms':>8}  statuses")
    for row in rows:
        print(f"  {row['op']:<18} {row['count']:>7} {row['per_s']:>7.1f} {row['p50']:>8.1f} "
              f"{row['p99']:>8.1f}  {row['statuses']}")
    for check in checks:
        print(check.line())
    if not args.no_docs:
        doc_write(args=args, rows=rows, checks=checks, results=results, facts=facts, info=machine(),
                  seed_line=seed_line)
        print("written to docs/load.md")
    if all(c.ok for c in checks):
        shutil.rmtree(workdir, ignore_errors=True)
        return 0
    print(f"logs kept in {workdir}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
