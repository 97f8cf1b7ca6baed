"""One migrated template database per test run, cloned by every xdist worker (issue 23: CI in half the time).

Without it each of `make test`'s workers builds its own test database by running every migration, three
times the same minute of CPU at the start of the run on a 2-core machine. Instead the first worker to
get here migrates one database, `test_<NAME>_template`, and every worker (that one included) creates its
own `test_<NAME>_gwN` as a PostgreSQL copy of it (`CREATE DATABASE … TEMPLATE`, Django's TEST TEMPLATE
setting): a copy takes about a second, and the `migrate` Django still runs on it finds nothing to do.

The template belongs to one run: it carries the run's id (xdist's `testrunuid`) as its database comment,
and a later run (other migrations, perhaps) builds its own. The workers take turns through a file lock,
so the template is built once and never copied while it is being built or while another worker copies
it (PostgreSQL refuses a template with another session in it).
"""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]


def template_name(settings_dict: dict) -> str:
    return f"test_{settings_dict['NAME']}_template"


@contextmanager
def run_lock(name: str):
    path = Path(tempfile.gettempdir()) / f"thingyard-{name}.lock"
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _admin_connection(settings_dict: dict):
    import psycopg

    return psycopg.connect(
        dbname="postgres",
        host=settings_dict.get("HOST") or None,
        port=settings_dict.get("PORT") or None,
        user=settings_dict.get("USER") or None,
        password=settings_dict.get("PASSWORD") or None,
        autocommit=True,
    )


def _database_url(settings_dict: dict, name: str) -> str:
    credentials = quote(settings_dict.get("USER") or "", safe="")
    if settings_dict.get("PASSWORD"):
        credentials += ":" + quote(settings_dict["PASSWORD"], safe="")
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{credentials}@{host}:{port}/{name}"


def ensure_template(settings_dict: dict, run_id: str) -> str:
    """The run's migrated template database (built here when this is the run's first worker); call it
    under `run_lock`. Returns its name."""
    from psycopg import sql

    name = template_name(settings_dict)
    with _admin_connection(settings_dict) as admin:
        row = admin.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if row is not None and row[0] == run_id:
            return name
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    # A process of its own: this worker's connections and settings stay as pytest-django left them.
    env = {**os.environ, "DATABASE_URL": _database_url(settings_dict, name),
           "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "--run-syncdb", "-v", "0"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"migrating the template database {name} failed:\n{result.stdout}{result.stderr}")
    with _admin_connection(settings_dict) as admin:
        admin.execute(sql.SQL("COMMENT ON DATABASE {} IS {}").format(sql.Identifier(name), sql.Literal(run_id)))
    return name


# A worker's database is dropped by a process of its own once the worker is done: PostgreSQL 15's DROP
# DATABASE requests a checkpoint and waits for it, and when the server is in the middle of a timed one
# (every 5 minutes on a busy server: tens of thousands of files to sync) that wait was 15-20 s at the end
# of every worker, the run's last seconds. The next run's worker drops a leftover of the same name first
# (`drop_leftover`, which waits for a drop still under way).
_DROP = (
    "import sys, psycopg\n"
    "from psycopg import sql\n"
    "with psycopg.connect(sys.argv[1], autocommit=True) as admin:\n"
    "    for name in sys.argv[2:]:\n"
    "        admin.execute(sql.SQL('DROP DATABASE IF EXISTS {} WITH (FORCE)').format(sql.Identifier(name)))\n"
)


def drop_in_background(settings_dict: dict, names: list[str]) -> None:
    """DROP DATABASE each of `names`, in a detached process the worker does not wait for."""
    if names:
        subprocess.Popen(
            [sys.executable, "-c", _DROP, _database_url(settings_dict, "postgres"), *names],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )


def drop_leftover(settings_dict: dict, name: str) -> None:
    """Drop database `name` if an earlier run left it (or is still dropping it), before it is created."""
    from psycopg import sql

    with _admin_connection(settings_dict) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

