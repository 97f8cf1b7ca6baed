"""The load generator of `make load`: runs in its own process, knows the server only by HTTP.

    python -m bench.mixed_driver <plan.json> <results.json>

The plan (written by bench/mixed.py) names the server, the tokens and the Things. `concurrency`
threads each drive their own disjoint share of the users, one request at a time, for `duration`
seconds: reads (a Thing, lists), searches, likes and unlikes, and uploads (start, POST the bytes to the
store, finalize). Because every user is driven by a single thread, the generator knows each user's
final like state from its own successful answers, and how many uploads it finalized per Thing; the
parent compares the database with that. One more thread drives a fresh user past the rate limit.

Every answer is recorded: latency per operation, status counts, and the first few unexpected answers.
"""
import http.client
import json
import random
import sys
import threading
import time
from collections import defaultdict
from urllib.parse import quote

import requests

EXPECTED_MISSES = {"search": {404}}  # spec §7: a search that matches nothing is 404
# A rate-limited user keeps its per-run budget well under the limit (docs/decisions.md: 300 per 5 minutes), so
# only the probe meets a 429; two runs within five minutes still fit.
USER_BUDGET = 140


def stl_bytes() -> bytes:
    """A binary STL of one triangle (what the upload step stores; processing measures it)."""
    import struct

    head = b"make load".ljust(80, b" ") + struct.pack("<I", 1)
    return head + struct.pack("<12fH", 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 10, 0, 0)


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.statuses: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.unexpected: list[dict] = []

    def add(self, op: str, started: float, status, body: bytes = b"", *, ok: bool):
        elapsed = (time.perf_counter() - started) * 1000
        with self.lock:
            self.latencies[op].append(elapsed)
            self.statuses[op][str(status)] += 1
            if not ok and len(self.unexpected) < 30:
                excerpt = body[:300].decode(errors="replace")
                self.unexpected.append({"op": op, "status": status, "body": excerpt})


class Api:
    """One HTTP connection to the server (gunicorn's sync workers close it after each answer, and
    http.client opens the next one by itself). A failed connection is an error, never resent: a resent
    POST could count twice."""

    def __init__(self, host: str, port: int):
        self.conn = http.client.HTTPConnection(host, port, timeout=30)

    def call(self, method: str, path: str, token: str, body: dict | None = None):
        headers = {"Authorization": f"Bearer {token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            return response.status, response.read(), response
        except (OSError, http.client.HTTPException):
            self.conn.close()
            raise


def _user_loop(plan, users: list[dict], recorder: Recorder, deadline: float, seed: int, out: dict):
    rng = random.Random(seed)
    host, port = plan["host"], plan["port"]
    api = Api(host, port)
    store = requests.Session()
    liked: dict[tuple[int, int], bool] = {}
    uploads: dict[int, int] = defaultdict(int)
    sent: dict[int, int] = defaultdict(int)
    ops = list(plan["mix"].items())
    names, weights = [o for o, _ in ops], [w for _, w in ops]
    turn = 0
    while time.monotonic() < deadline:
        available = [u for u in users if sent[u["id"]] < USER_BUDGET]
        if not available:
            break
        user = available[turn % len(available)]
        turn += 1
        token = user["token"]
        op = rng.choices(names, weights)[0]
        try:
            if op == "thing":
                path = f"/things/{rng.choice(plan['read_ids'])}/"
                _plain(api, recorder, op, "GET", path, token)
                sent[user["id"]] += 1
            elif op == "list":
                path = rng.choice(plan["list_paths"]).replace("{page}", str(rng.randint(1, 10)))
                _plain(api, recorder, op, "GET", path, token)
                sent[user["id"]] += 1
            elif op == "search":
                _plain(api, recorder, op, "GET", f"/search/{quote(rng.choice(plan['search_terms']))}/", token)
                sent[user["id"]] += 1
            elif op == "like":
                # Each user keeps to four targets (overlapping other users'), so it also unlikes.
                targets = plan["like_ids"]
                thing = targets[(user["id"] * 7 + rng.randrange(4)) % len(targets)]
                key = (user["id"], thing)
                method = "DELETE" if liked.get(key) else "POST"
                started = time.perf_counter()
                status, body, _ = api.call(method, f"/things/{thing}/likes", token)
                sent[user["id"]] += 1
                ok = status == 200
                recorder.add("like" if method == "POST" else "unlike", started, status, body, ok=ok)
                if ok:
                    liked[key] = method == "POST"
            elif op == "upload":
                thing = user["upload_thing"]
                if _upload(api, store, recorder, token, thing, rng):
                    uploads[thing] += 1
                sent[user["id"]] += 2
        except (OSError, http.client.HTTPException) as exc:
            recorder.add(op, time.perf_counter(), "connection error", str(exc).encode(), ok=False)
    with recorder.lock:
        out["liked"].update({f"{u}:{t}": v for (u, t), v in liked.items()})
        for thing, count in uploads.items():
            out["uploads"][str(thing)] = out["uploads"].get(str(thing), 0) + count


def _plain(api: Api, recorder: Recorder, op: str, method: str, path: str, token: str):
    started = time.perf_counter()
    status, body, _ = api.call(method, path, token)
    recorder.add(op, started, status, body, ok=status == 200 or status in EXPECTED_MISSES.get(op, ()))


def _upload(api: Api, store: requests.Session, recorder: Recorder, token: str, thing: int, rng) -> bool:
    """spec §4.10: start, POST to the store, finalize; True when finalize answered the summary."""
    started = time.perf_counter()
    filename = f"part-{rng.randrange(10**6)}.stl"
    status, body, _ = api.call("POST", f"/things/{thing}/files", token, {"filename": filename})
    recorder.add("upload_start", started, status, body, ok=status == 200)
    if status != 200:
        return False
    descriptor = json.loads(body)
    started = time.perf_counter()
    stored = store.post(descriptor["action"], data=list(descriptor["fields"].items()),
                        files={"file": (filename, stl_bytes(), "model/stl")}, allow_redirects=False,
                        timeout=30)
    stored_ok = stored.status_code in (200, 201, 204, 303)
    recorder.add("store_post", started, stored.status_code, stored.content, ok=stored_ok)
    if not stored_ok:
        return False
    upload_id = descriptor["fields"]["success_action_redirect"].rstrip("/").split("/")[-2]
    started = time.perf_counter()
    status, body, _ = api.call("POST", f"/files/{upload_id}/finalize", token)
    recorder.add("finalize", started, status, body, ok=status == 200)
    return status == 200


def _rate_limit_probe(plan, recorder: Recorder, windows: dict, lock: threading.Lock, deadline: float):
    """One of several threads sharing one fresh user's token, past the limit, concurrently.

    Per window (X-RateLimit-Reset) it notes the admitted requests and the Remaining each was told: an
    exact, atomic limit hands out each of 299…0 exactly once and then refuses.
    """
    api = Api(plan["host"], plan["port"])
    token = plan["probe_token"]
    while time.monotonic() < deadline:
        started = time.perf_counter()
        try:
            status, body, response = api.call("GET", "/users/me", token)
        except (OSError, http.client.HTTPException) as exc:
            recorder.add("rate_limit_probe", started, "connection error", str(exc).encode(), ok=False)
            continue
        recorder.add("rate_limit_probe", started, status, body, ok=status in (200, 429))
        reset = response.getheader("X-RateLimit-Reset", "?")
        with lock:
            window = windows.setdefault(reset, {"admitted": 0, "refused": 0, "refusals_well_formed": 0,
                                                "remaining": []})
            if status == 200:
                window["admitted"] += 1
                window["remaining"].append(int(response.getheader("X-RateLimit-Remaining", "-1")))
            elif status == 429:
                window["refused"] += 1
                if json.loads(body).get("type") == "RATE_LIMITED" and response.getheader("Retry-After"):
                    window["refusals_well_formed"] += 1
            if any(w["refused"] >= plan["probe_refusals"] for w in windows.values()):
                return


def main(plan_path: str, results_path: str) -> int:
    with open(plan_path) as fh:
        plan = json.load(fh)
    recorder = Recorder()
    out: dict = {"liked": {}, "uploads": {}, "probe": {}}
    users = plan["users"]
    concurrency = plan["concurrency"]
    started = time.monotonic()
    deadline = started + plan["duration"]
    threads = [
        threading.Thread(target=_user_loop, args=(plan, users[i::concurrency], recorder, deadline, i, out))
        for i in range(concurrency)
    ]
    windows: dict = {}
    probe_lock = threading.Lock()
    # The probe may outlive the mixed load (a slow machine, a window boundary): it stops once refused.
    probe_deadline = started + max(plan["duration"], plan["probe_max_seconds"])
    threads += [
        threading.Thread(target=_rate_limit_probe, args=(plan, recorder, windows, probe_lock, probe_deadline))
        for _ in range(plan["probe_threads"])
    ]
    for thread in threads:
        thread.start()
    for thread in threads[:concurrency]:
        thread.join()
    elapsed = time.monotonic() - started  # the mixed load; the probe may still be finishing
    for thread in threads[concurrency:]:
        thread.join()
    for window in windows.values():
        remaining = window.pop("remaining")
        # Each remaining value handed out once: no count lost or doubled under concurrency.
        window["remaining_each_once"] = sorted(remaining) == list(range(min(remaining, default=0), 300))
        window["lowest_remaining"] = min(remaining, default=None)
    out["probe"] = windows
    out.update({
        "seconds": elapsed,
        "latencies_ms": recorder.latencies,
        "statuses": {op: dict(s) for op, s in recorder.statuses.items()},
        "unexpected": recorder.unexpected,
    })
    with open(results_path, "w") as fh:
        json.dump(out, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
