"""The HTTP part of `make bench`: choose the targets, start gunicorn, load each target, stop gunicorn.

The endpoints are probed in-process first (Django test client, same settings and database), so a target
whose endpoint is not built yet is reported as not measured instead of flooding the server with 404s.
"""
import http.client
import json
import statistics
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

from bench import load, seed, words
from bench.report import Target, machine
from bench.server import GunicornServer, ServerConfig
from bench.urls import FLOOR_PATH
from bench.views import synthetic_payload

BENCH_USERNAME = "benchclient"
BENCH_APP_CLIENT_ID = "thingyard-bench-app"
DETAIL_IDS = 2000
LIST_PER_PAGE = 30


def bench_client_token() -> str:
    """A user, an approved app and a long-lived access token, as apps.demo.services.demo_seed makes them."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from oauth2_provider.models import get_access_token_model, get_application_model

    from apps.oauth.tokens import generate_token

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
    AccessToken = get_access_token_model()
    token = (
        AccessToken.objects.filter(user=user, application=app, expires__gt=timezone.now() + timedelta(days=1))
        .order_by("-expires")
        .first()
    )
    if token is None:
        token = AccessToken.objects.create(user=user, application=app, token=generate_token(),
                                           expires=timezone.now() + timedelta(days=365), scope="read write")
    return token.token


def _probe(client, path: str):
    response = client.get(path)
    body = response.content
    try:
        data = json.loads(body) if body else None
    except ValueError:
        data = None
    return response.status_code, body, data


def targets_choose(*, token: str, workdir: Path) -> tuple[dict[str, Target], Path]:
    """The four targets with their request paths, and the floor's payload file sized like a Thing."""
    from django.test import Client

    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    sample = seed.catalogue_sample(count=DETAIL_IDS)
    targets = {
        "floor": Target("floor", "floor (plain Django JSON view)", [FLOOR_PATH]),
        "detail": Target("detail", "GET /things/{id}/", [f"/things/{i}/" for i in sample["thing_ids"]]),
        "list": Target("list", f"{LIST_PER_PAGE}-item list", []),
        "search": Target("search", "GET /search/{term}/", [f"/search/{quote(t)}/" for t in words.SEARCH_TERMS]),
    }

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
    if sample["category"]:
        candidates.append(f"/categories/{sample['category']}/things?per_page={LIST_PER_PAGE}")
    if sample["tag"]:
        candidates.append(f"/tags/{quote(sample['tag'])}/things?per_page={LIST_PER_PAGE}")
    answers = []
    for path in candidates:
        status, body, data = _probe(client, path)
        if status == 200 and isinstance(data, list) and len(data) == LIST_PER_PAGE:
            lst.paths, lst.label = [path], f"{LIST_PER_PAGE}-item list {path.split('?')[0]}"
            break
        answers.append(f"{path.split('?')[0]} {status}")
    else:
        lst.skipped = "no list endpoint answered 30 items (" + ", ".join(answers) + ")"

    search = targets["search"]
    statuses = [_probe(client, path)[0] for path in search.paths]
    if all(s == 404 for s in statuses):
        search.skipped = "every term answered 404 (endpoint not built?)"
    elif any(s != 200 for s in statuses):
        # Kept: a term that fails under load shows as errors, as it should.
        print(f"  warning: search probe statuses {dict(zip(words.SEARCH_TERMS, statuses))}")
    return targets, payload_path


def _body_size(port: int, path: str, token: str) -> tuple[int, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        return response.status, len(response.read())
    finally:
        conn.close()


def _server_versions() -> dict:
    from django.conf import settings
    from django.db import connection

    import redis

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        postgres = "PostgreSQL " + cursor.fetchone()[0].split()[0]
    try:
        info: dict = redis.Redis.from_url(settings.REDIS_URL).info("server")  # type: ignore[assignment]
        redis_version = info["redis_version"]
    except redis.RedisError:
        redis_version = "?"
    return {"postgres": postgres, "redis": redis_version}


def http_run(*, config: ServerConfig, concurrency: int, duration: float, warmup: float, tool_preference: str,
             workdir: Path) -> tuple[dict[str, Target], dict]:
    tool = load.tool_choose(tool_preference)
    token = bench_client_token()
    targets, payload_path = targets_choose(token=token, workdir=workdir)
    settings = {
        "server": config.describe(),
        "tool": load.tool_describe(tool),
        "concurrency": concurrency,
        "duration": duration,
        "warmup": warmup,
        "detail_ids": len(targets["detail"].paths),
        "search_terms": words.SEARCH_TERMS,
        **_server_versions(),
    }
    print(f"== HTTP: {settings['server']}; {settings['tool']}; {concurrency} connections, "
          f"{warmup:g} s warm-up + {duration:g} s per target")
    headers = {"Authorization": f"Bearer {token}"}
    with GunicornServer(config, env={}, floor_payload=payload_path, log_path=workdir / "gunicorn.log") as server:
        settings["machine"] = machine()
        try:
            for target in targets.values():
                if target.skipped:
                    print(f"  {target.label:<34} not measured: {target.skipped}")
                    continue
                status, size = _body_size(server.port, target.paths[0], token)
                if target.key != "detail" or not target.body_bytes:
                    target.body_bytes = size
                load.run(tool, port=server.port, paths=target.paths, headers=headers, concurrency=concurrency,
                         seconds=warmup)
                r = load.run(tool, port=server.port, paths=target.paths, headers=headers,
                             concurrency=concurrency, seconds=duration)
                target.result = r
                print(f"  {target.label:<34} {r.throughput:7.0f} req/s  p50 {r.p50_ms:6.1f}  p95 {r.p95_ms:6.1f}  "
                      f"p99 {r.p99_ms:6.1f} ms  errors {r.error_count}  ({target.body_bytes} B)", flush=True)
        except BaseException:
            tail = server.log_tail()
            if tail:
                print("gunicorn log (tail):\n" + tail)
            raise
    return targets, settings
