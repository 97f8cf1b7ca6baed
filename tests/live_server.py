"""A real gunicorn on a free loopback port, started in the repository root as deployments start it
(so gunicorn.conf.py applies), for tests about what only the HTTP server does."""
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def gunicorn_running(*args: str):
    """Yields the base URL; the process is stopped (by its pid) on exit."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi:application",
         "--bind", f"127.0.0.1:{port}", "--workers", "1", *args],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(base + "/no-such-page", timeout=2)
            except urllib.error.HTTPError:
                break  # the JSON 404: the server answers
            except OSError:
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=10)


def fetch(url: str | urllib.request.Request, **kwargs) -> tuple[int, dict, bytes]:
    """(status, headers, body) of a GET, errors included."""
    try:
        with urllib.request.urlopen(url, timeout=10, **kwargs) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
