"""Start gunicorn on a free loopback port with the bench settings, wait until it answers, always stop it."""
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.views import PAYLOAD_ENV

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class ServerConfig:
    workers: int
    worker_class: str = "gthread"
    threads: int = 1

    def describe(self) -> str:
        threads = f" × {self.threads} threads" if self.worker_class == "gthread" else ""
        return f"gunicorn {self.workers} {self.worker_class} workers{threads}, keep-alive 5 s, DEBUG off"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class GunicornServer:
    """Context manager: `with GunicornServer(...) as server: server.port`."""

    def __init__(self, config: ServerConfig, *, env: dict, floor_payload: Path, log_path: Path):
        self.config = config
        self.env = {**os.environ, **env, PAYLOAD_ENV: str(floor_payload), "DJANGO_SETTINGS_MODULE": "bench.settings"}
        self.log_path = log_path
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def __enter__(self):
        command = [
            sys.executable, "-m", "gunicorn", "config.wsgi:application",
            "--bind", f"127.0.0.1:{self.port}",
            "--workers", str(self.config.workers),
            "--worker-class", self.config.worker_class,
            "--threads", str(self.config.threads),
            "--keep-alive", "5",
            "--backlog", "2048",
            "--log-level", "warning",
            "--error-logfile", str(self.log_path),
            "--chdir", str(REPO),
        ]
        self._log = open(self.log_path, "ab")
        # Own session: a Ctrl-C in the terminal reaches us, and we stop gunicorn in order.
        self.process = subprocess.Popen(command, env=self.env, cwd=REPO, stdout=self._log, stderr=self._log,
                                        start_new_session=True)
        try:
            self._wait_ready(timeout=60)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _wait_ready(self, *, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        assert self.process is not None, "start() first"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}; see {self.log_path}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn not ready after {timeout:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        """SIGTERM (graceful), then SIGKILL to the process group we created if it lingers."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        self.process = None
        self._log.close()

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""
