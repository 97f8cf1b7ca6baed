"""Webhook test fixtures: a real HTTP receiver on loopback (a thread), apps whose URL points at it."""
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from apps.oauth.tests.factories import ApplicationFactory


class Receiver:
    """Records every POST; answers from a queue of scripted responses, then 200 'ok'.

    A scripted response is (status, headers, body), or ("sleep", seconds), or ("block", None): the
    handler waits until `release()` (a worker killed mid-delivery never reads the answer).
    """

    def __init__(self):
        self.requests: list[dict] = []
        self.script: list = []
        self.arrived = threading.Condition()
        self._release = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def respond(self, *responses) -> None:
        self.script.extend(responses)

    def release(self) -> None:
        self._release.set()

    def wait_for(self, count: int, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.arrived.wait(left)
        return True

    def _handler(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.arrived:
                    receiver.requests.append(
                        {"path": self.path, "headers": dict(self.headers.items()), "body": body, "at": time.time()}
                    )
                    step = receiver.script.pop(0) if receiver.script else (200, {}, b"ok")
                    receiver.arrived.notify_all()
                if step[0] == "block":
                    receiver._release.wait(60)
                    step = (200, {}, b"late")
                elif step[0] == "sleep":
                    time.sleep(step[1])
                    step = (200, {}, b"slow")
                status, headers, payload = step
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (timeout, killed worker)

        return Handler

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.release()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver().start()
    yield r
    r.stop()


@pytest.fixture
def allow_private(settings):
    # The receiver listens on loopback, a private address (docs/decisions.md: allowed only by this setting).
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = True
    return settings


@pytest.fixture
def hook_app(db, owner, receiver):
    """An app of `owner` whose webhook URL is the loopback receiver."""
    return ApplicationFactory(user=owner, webhook_url=receiver.url)


def pytest_configure(config):
    config.addinivalue_line("markers", "worker: starts real Celery worker processes on Redis (slow-ish)")
