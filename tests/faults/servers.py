"""Private, breakable servers for the fault tests: PostgreSQL, Redis, a store proxy, gunicorn, a worker.

The shared PostgreSQL and Redis on 5432/6379 serve every other test run on the machine and are never
touched: each fault session starts its own cluster and redis-server on free loopback ports, in a
temporary directory, and stops and deletes them afterwards. The web process and the Celery worker
are the real programs (gunicorn with the production settings, `celery worker`) as subprocesses.
"""
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def wait_until(predicate, *, timeout: float, interval: float = 0.05, what: str | Callable[[], str] = "condition"):
    """Poll `predicate` until it returns something true (returned) or `timeout` passes (TimeoutError).
    `what` names the condition in the error; a callable is called only then, so a process's log in the
    message is the log at the timeout, not at the start of the wait."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"{what() if callable(what) else what} not reached in {timeout:.0f} s")


# --- PostgreSQL ---------------------------------------------------------------------------------------


def postgres_bindir() -> Path | None:
    """The newest installed server binaries (Debian layout first, then whatever pg_config names)."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if candidates:
        return Path(candidates[-1]).parent
    pg_config = shutil.which("pg_config")
    if pg_config:
        bindir = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout.strip()
        if (Path(bindir) / "initdb").exists():
            return Path(bindir)
    return None


class PrivatePostgres:
    """A throwaway cluster (trust auth, fsync off) on a free port; run as `postgres` when we are root."""

    def __init__(self):
        bindir = postgres_bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL server binaries (initdb) not found")
        self.bindir: Path = bindir
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="thingyard-faults-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.dir, "postgres", "postgres")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/thingyard"

    def _run(self, *args, check=True, **kw):
        prefix = ["runuser", "-u", "postgres", "--"] if self._as_postgres else []
        return subprocess.run([*prefix, *map(str, args)], check=check, capture_output=True, text=True, **kw)

    def init(self) -> "PrivatePostgres":
        self._run(self.bindir / "initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
                  "--no-sync", "--no-instructions")
        self.start()
        self._run(self.bindir / "createdb", "-h", "127.0.0.1", "-p", self.port, "-U", "postgres", "thingyard")
        return self

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=60")
        self._run(self.bindir / "pg_ctl", "-D", self.data, "-o", options, "-l", self.log, "-w", "-t", "30",
                  "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(self.bindir / "pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "30", "stop", check=False)

    def restart_stopped(self) -> None:
        self.start()

    def is_ready(self) -> bool:
        return subprocess.run([str(self.bindir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)]
                              ).returncode == 0

    def load_schema_from(self, *, host: str, port: int, user: str, dbname: str) -> None:
        """Clone an already migrated database (the session's test database): seconds instead of a migrate."""
        dump = subprocess.run(
            [str(self.bindir / "pg_dump"), "-h", host, "-p", str(port), "-U", user, "--no-owner",
             "--no-privileges", dbname],
            check=True, capture_output=True,
        ).stdout
        subprocess.run(
            [str(self.bindir / "psql"), "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
             "-d", "thingyard", "-v", "ON_ERROR_STOP=1"],
            input=dump, check=True, capture_output=True,
        )

    def query(self, sql: str, params=()) -> list[tuple]:
        import psycopg

        dsn = f"postgresql://postgres@127.0.0.1:{self.port}/thingyard"
        with psycopg.connect(dsn, autocommit=True) as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


# --- Redis --------------------------------------------------------------------------------------------


class PrivateRedis:
    """redis-server on a free port, no persistence: stop() is an outage, start() an empty Redis again."""

    def __init__(self):
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> "PrivateRedis":
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        wait_until(lambda: port_open(self.port), timeout=10, what="redis-server listening")
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None
        wait_until(lambda: not port_open(self.port), timeout=10, what="redis-server stopped")

    def client(self, db: int = 0):
        import redis

        return redis.Redis.from_url(self.url(db), socket_timeout=2)


# --- The object store, through a proxy a test can hold or cut ------------------------------------------


class StoreProxy:
    """A TCP forwarder in front of moto's S3 server.

    `cut()` closes the listener and every connection: the store is unreachable (connection refused).
    `hold()` keeps connections open but forwards nothing until `release()`: a request to the store
    hangs, as on a stalled network; `held` is set once a request is waiting.
    """

    def __init__(self, upstream: str):
        host_port = upstream.split("://", 1)[1].rstrip("/")
        self._upstream = (host_port.split(":")[0], int(host_port.split(":")[1]))
        self.port = free_port()
        self._open = threading.Event()
        self._open.set()
        self.held = threading.Event()
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "StoreProxy":
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def cut(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            _close(listener)  # shutdown() wakes the thread blocked in accept(); close() alone would not
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            _close(sock)

    def restore(self) -> None:
        self.start()

    def hold(self) -> None:
        self.held.clear()
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self._upstream, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _close(client)
                continue
            with self._lock:
                self._sockets.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source, target, outbound: bool):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if outbound and not self._open.is_set():
                    self.held.set()
                    self._open.wait()
                target.sendall(data)
        except OSError:
            pass
        finally:
            _close(source)
            _close(target)
            with self._lock:
                self._sockets.discard(source)
                self._sockets.discard(target)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


# --- The web process and the worker ---------------------------------------------------------------------


class Gunicorn:
    """The real web process: gunicorn, sync workers, the fault stack's settings (production + test queue)."""

    def __init__(self, env: dict, *, workers: int = 2):
        self.port = free_port()
        self.env = {**env, "THINGYARD_API_URL": f"http://127.0.0.1:{self.port}"}
        self.workers = workers
        self.log = tempfile.NamedTemporaryFile(prefix="thingyard-faults-web-", suffix=".log", delete=False)
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "Gunicorn":
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(self.workers), "--worker-class", "sync", "--timeout", "30",
             "--graceful-timeout", "5", "--log-level", "warning", "--chdir", str(ROOT)],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.output()}")
            try:
                if requests.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    # Every worker has booted when the master lists them all.
                    if len(self.worker_pids()) == self.workers:
                        return self
            except requests.RequestException:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"gunicorn not ready in {START_TIMEOUT} s: {self.output()}")

    def worker_pids(self) -> set[int]:
        assert self.process is not None, "start() first"
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            return {int(pid) for pid in path.read_text().split()}
        except OSError:
            return set()

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        Path(self.log.name).unlink(missing_ok=True)


class CeleryWorker:
    """`celery -A config worker` on the stack's private Redis and database.

    `queues`: what it consumes (all three by default, as `make run`'s worker); `pool`: solo (one process)
    or prefork (a parent and `concurrency` children: the pool that enforces time limits and gives a
    killed child's message back); `beat`: runs the beat schedule too (the pending-task redrive)."""

    def __init__(self, env: dict, *, queues: str = "celery,webhooks,processing", pool: str = "solo",
                 concurrency: int = 1, beat: bool = False):
        self.name = f"faults-{uuid.uuid4().hex[:8]}@localhost"
        self.log = tempfile.NamedTemporaryFile(prefix="thingyard-faults-worker-", suffix=".log", delete=False)
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", f"--pool={pool}",
                   f"--concurrency={concurrency}", "-Q", queues, "-n", self.name, "--without-gossip",
                   "--without-mingle", "--without-heartbeat", "--loglevel=INFO"]
        if beat:
            command += ["-B", "--schedule", f"{self.log.name}.beat"]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited: {self.output()}")
            if "ready." in self.output():
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"worker not ready in {START_TIMEOUT} s: {self.output()}")

    def children(self) -> set[int]:
        """The pool's child processes (prefork), by PID."""
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            return {int(pid) for pid in path.read_text().split()}
        except OSError:
            return set()

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no warm shutdown, nothing acknowledged or requeued by the worker itself."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # warm shutdown: gives reserved messages back to the broker
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        Path(self.log.name).unlink(missing_ok=True)
        for leftover in glob.glob(f"{self.log.name}.beat*"):
            Path(leftover).unlink(missing_ok=True)
