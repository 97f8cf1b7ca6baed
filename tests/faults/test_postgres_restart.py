"""PostgreSQL restarted under a running web process: clean 503s during the outage, 200s right after.

The web process is gunicorn with production's persistent connections (CONN_MAX_AGE 60, no per-request health
checks: apps.core.db.postgresql replaces a dropped connection); it is not restarted. Django raises OperationalError/InterfaceError while the server is gone,
the token lookup included (it runs before any view); apps/core answers those with docs/decisions.md's body,
type SERVICE_UNAVAILABLE, `Retry-After: 5`, never a 500 or an HTML page. Readiness (/readyz) says 503 too; liveness (/healthz) stays 200.
"""
import threading
import time

import pytest
import requests

from tests.faults.conftest import record

pytestmark = [pytest.mark.faults, pytest.mark.django_db]

UNAVAILABLE = {
    "error": "The database is unavailable; try again shortly.",
    "code": 503,
    "type": "SERVICE_UNAVAILABLE",
}


def _assert_clean_503(response):
    assert response.status_code == 503, response.text[:300]
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json() == UNAVAILABLE
    assert response.headers["Retry-After"] == "5"
    assert response.headers["X-Error"] == UNAVAILABLE["error"]


class Hammer:
    """Threads sending requests for as long as the test runs, recording every outcome.

    Each thread acts as a user of its own (frank, grace; the liker heidi) that no other fault test uses, and
    paces itself: with the token cache a request during the outage passes authentication and is counted
    by the rate limit, so an unpaced thread on a slow machine could spend a user's whole budget (300 per
    5 minutes) and leave the users other tests count with at 0.
    """

    USERS = ("frank", "grace")
    PAUSE = 0.1  # seconds between one thread's requests: at most 10 a second per user

    def __init__(self, stack, paths: list[str], threads: int = 2, liker: tuple[str, int] | None = None):
        self.stack, self.paths = stack, paths
        self.outcomes: list[tuple] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(n,), daemon=True) for n in range(threads)]
        if liker:
            self._threads.append(threading.Thread(target=self._like, args=liker, daemon=True))

    def __enter__(self):
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for thread in self._threads:
            thread.join(30)

    def _run(self, n: int):
        session = requests.Session()
        headers = self.stack.headers(self.USERS[n % len(self.USERS)])
        i = n
        while not self._stop.wait(self.PAUSE):
            path = self.paths[i % len(self.paths)]
            i += 1
            try:
                r = session.get(f"{self.stack.web.url}{path}", headers=headers, timeout=20)
            except requests.RequestException as exc:
                self.outcomes.append(("connection error", str(exc)))
                continue
            try:
                body = r.json()
            except ValueError:
                body = r.text[:200]
            self.outcomes.append((r.status_code, body, r.headers.get("Retry-After")))

    def _like(self, who: str, thing_id: int):
        # Writes in flight when the server goes away must leave like_count equal to the Like rows.
        session = requests.Session()
        headers = self.stack.headers(who)
        url = f"{self.stack.web.url}/things/{thing_id}/likes"
        n = 0
        while not self._stop.wait(self.PAUSE):
            method = "POST" if n % 2 == 0 else "DELETE"
            n += 1
            try:
                r = session.request(method, url, headers=headers, timeout=20)
            except requests.RequestException as exc:
                self.outcomes.append(("connection error", str(exc)))
                continue
            self.outcomes.append((r.status_code, r.json(), r.headers.get("Retry-After")))


def test_requests_answer_503_while_postgres_restarts_and_the_same_workers_serve_again(healthy):
    stack = healthy
    thing_id = stack.seed["thing_id"]
    workers_before = stack.web.worker_pids()
    warm = [stack.get(f"/things/{thing_id}") for _ in range(6)]
    assert [r.status_code for r in warm] == [200] * 6, stack.web.output()[-3000:]

    with Hammer(stack, [f"/things/{thing_id}", "/users/me", "/newest/"], liker=("heidi", thing_id)) as hammer:
        time.sleep(0.5)
        stack.pg.stop("fast")  # terminates every open connection, as a restart or failover does
        outage_started = time.monotonic()
        # The token lookup itself fails: erin's token, used by no request before, is in no cache (a token
        # used in the last OAUTH_TOKEN_CACHE_SECONDS is read from Redis, not PostgreSQL).
        _assert_clean_503(stack.get("/users/me", who="erin"))
        _assert_clean_503(stack.post(f"/things/{thing_id}/likes", who="bob"))
        _assert_clean_503(stack.request("POST", "/login/oauth/tokeninfo", who=None,
                                        data={"access_token": stack.seed["tokens"]["bob"]}))  # not a DRF view
        ready = requests.get(f"{stack.web.url}/readyz", timeout=10)
        assert ready.status_code == 503
        assert ready.json()["checks"]["database"]["ok"] is False
        assert requests.get(f"{stack.web.url}/healthz", timeout=10).status_code == 200  # liveness: no I/O
        time.sleep(1.0)
        stack.pg.start()
        outage_seconds = time.monotonic() - outage_started
        after = [stack.get(path) for path in (f"/things/{thing_id}", "/users/me", "/newest/") * 4]
        time.sleep(0.3)

    assert [r.status_code for r in after] == [200] * len(after)
    assert stack.web.worker_pids() == workers_before  # recovered in place, no worker restarted
    assert requests.get(f"{stack.web.url}/readyz", timeout=10).json()["checks"]["database"]["ok"] is True
    assert stack.post(f"/things/{thing_id}/likes", who="bob").json() == {"ok": True}
    assert stack.delete(f"/things/{thing_id}/likes", who="bob").json() == {"ok": True}

    statuses = {outcome[0] for outcome in hammer.outcomes}
    assert statuses <= {200, 503}, [o for o in hammer.outcomes if o[0] not in (200, 503)][:5]
    unavailable = [o for o in hammer.outcomes if o[0] == 503]
    assert unavailable and all(o[1] == UNAVAILABLE and o[2] == "5" for o in unavailable)
    assert hammer.outcomes[-1][0] == 200
    like_count, like_rows = stack.pg.query(
        "SELECT like_count, (SELECT count(*) FROM things_like WHERE thing_id = t.id) FROM things_thing t "
        "WHERE id = %s", (thing_id,))[0]
    assert like_count == like_rows  # no write half-applied by the outage
    record(
        "postgres restart",
        outage_seconds=round(outage_seconds, 1),
        requests_during_the_run=len(hammer.outcomes),
        answered_200=sum(o[0] == 200 for o in hammer.outcomes),
        answered_503=len(unavailable),
        answered_otherwise=0,
        requests_200_right_after_restart=len(after),
        web_workers_restarted=0,
    )
