"""`make fuzz`: Schemathesis against a live Thingyard, checking the API against its own OpenAPI document.

    python -m tests.contract.fuzz [--max-examples N] [--seed S] [--keep-db] [--wire-version V] [-- extra args]

`--wire-version thingiverse` checks that wire version instead (apps.core.pipeline.wire): its own document
(/openapi.json?version=thingiverse), every request sent with `Thingyard-Version: thingiverse`.

What it does, all on loopback and free ports, every process stopped on exit:
1. recreates the database `thingyard_fuzz` (FUZZ_DATABASE_URL) from scratch and migrates it, so every run
   starts from the same state (beside `make test` in CI, a copy of the test run's migrated template:
   `_test_run_template`);
2. starts moto's S3 server and seeds the data (tests/contract/seed.py: the demo users, Things, approved
   app and token, one of every object for two users, and the objects the stateful operations need),
   whose ids go into the run's schemathesis.toml (dictionaries, and per-operation fixed objects);
3. starts gunicorn on the test settings (tests/contract/settings.py) with the rate limit lifted, logging
   every request's line and status;
4. runs `schemathesis run` on the document (/openapi.json, saved to .run/fuzz/) once per entry of RUNS:
   Schemathesis's default mode (valid and invalid input, every phase) with a fixed seed, then its
   negative mode (invalid input only; the fuzzing phase alone, the coverage phase's invalid cases being
   the default run's) with a second seed;
   then, for each other wire version (OTHER_VERSIONS), a run of its own document (examples and fuzzing
   phases), every request asking for that version;
   each with no example database and no cache (the same inputs every run), a bounded number of examples
   per operation, WORKERS operations at once (NEGATIVE_WORKERS in the negative run; on SERVER_WORKERS
   gunicorn processes), and the demo user's Bearer token, with the checks in CHECKS and the hooks in
   tests/contract/fuzz_hooks.py; each run writes its own JUnit report (junit.xml, junit-negative.xml,
   junit-thingiverse.xml);
5. prints how many operations answered a success at least once (tests/contract/fuzz_coverage.py).

Exit status: 0 when every run passed every check, else the first failing run's. Logs, the JUnit and JSON
reports, the access log and the per-operation statuses (coverage.txt) go to .run/fuzz/.
"""
import argparse
from dataclasses import dataclass, replace
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import environ

from tests import dbtemplate
from tests.contract import fuzz_coverage

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
OUT = ROOT / ".run" / "fuzz"

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/thingyard_fuzz"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
SEED = 20261120
NEGATIVE_SEED = 7
MAX_EXAMPLES = 8
DICTIONARY_PROBABILITY = 0.5
# The default run tests WORKERS operations at once (each operation's examples still come from the run's
# seed: the same ~7,200 cases), against SERVER_WORKERS gunicorn processes: one operation at a time left the
# run waiting on each request's round trip, most of its ten minutes in CI (issue 23: CI in half the time).
# The negative run stays on one worker: with four, Schemathesis generated about 12 % fewer cases (991
# instead of 1,124 with seed 7) and skipped an operation; it is the shorter run (about 20 % of the cases).
WORKERS = 4
NEGATIVE_WORKERS = 1
SERVER_WORKERS = 3

# The four properties, plus the rest of "every response conforms to the schema" (status codes,
# content types, documented headers).
CHECKS = [
    "not_a_server_error",
    "response_schema_conformance",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "negative_data_rejection",
    "ignored_auth",
]

# Operations left out (by operationId), each for a reason that is not "it fails":
EXCLUDED_OPERATIONS = {
    # DELETE /users/{username}/ deletes the account of the token's own user (the only token the fuzzer
    # holds): every later request would be a 401 and test nothing. apps/accounts/tests and tests/security
    # cover it.
    "users_destroy",
}




@dataclass(frozen=True)
class Run:
    """One `schemathesis run`. `suffix` names its configuration and reports; `version` is the wire version
    every request asks for (None: none, so `spec`), whose own document it checks; `phases` None: every
    phase of its mode."""

    name: str
    mode: str
    suffix: str
    version: str | None = None
    phases: str | None = None


# The negative run leaves out undeclared query parameters: the API ignores a query parameter it does not
# know (docs/decisions.md: Contract fuzzing depth), so adding one does not make a request invalid, and
# Schemathesis would report every 200 to one. It runs only the fuzzing phase (_schemathesis_command says why).
RUNS = [Run("default", "all", ""), Run("negative", "negative", "-negative", phases="fuzzing")]
# The wire versions besides `spec` (apps.core.pipeline.versions.VERSIONS; a test keeps the two in step).
# `make fuzz` checks each one's document on every run: its examples, then the fuzzing phase (valid and
# invalid cases drawn from the run's seed, --max-examples per operation), every request asking for that
# version. Not the coverage phase: its boundary cases of every operation are about 6,000 of the default
# run's 7,200 and would double the fuzz's time in CI; the shapes a version changes are answers, which the
# valid cases reach. `--wire-version V` runs the two runs above under V instead, for a deep run by hand.
OTHER_VERSIONS = ("thingiverse",)
OTHER_VERSION_PHASES = "examples,fuzzing"


def main(argv=None) -> int:
    args = _parse_args(argv)
    # SIGTERM (CI timeouts, `make` interrupted) unwinds like Ctrl-C, so the servers below are stopped.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("junit*.xml"):  # CI counts every report here: only this run's
        old.unlink()
    database_url = os.environ.get("FUZZ_DATABASE_URL", DEFAULT_DATABASE_URL)
    web_port, s3_port = _free_port(), _free_port()
    base = f"http://127.0.0.1:{web_port}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.contract.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": os.environ.get("FUZZ_REDIS_URL") or os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL,
        "S3_ENDPOINT_URL": f"http://127.0.0.1:{s3_port}",
        "THINGYARD_API_URL": base,
        "RATE_LIMIT_REQUESTS": "1000000",
        "PYTHONHASHSEED": "0",
    }
    processes: list[subprocess.Popen] = []
    try:
        if not args.keep_db:
            _recreate_database(database_url)
        _step("migrate", [sys.executable, "manage.py", "migrate", "--noinput"], env)
        moto = [str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(s3_port)]
        processes.append(_start("moto", moto, env))
        _wait_for_port(s3_port)
        seeded = _seed(env)
        token = seeded["token"]
        (OUT / "access.log").unlink(missing_ok=True)  # gunicorn appends: this run's requests only
        processes.append(
            _start(
                "gunicorn",
                [
                    str(BIN / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{web_port}",
                    "--workers", str(args.server_workers), "--timeout", "60", "--graceful-timeout", "5",
                    # every request's line and status, for the per-operation coverage below
                    "--access-logfile", str(OUT / "access.log"),
                    "--access-logformat", fuzz_coverage.ACCESS_LOG_FORMAT,
                ],
                env,
            )
        )
        _wait_for_http(f"{base}/healthz")
        documents: dict[str | None, dict] = {}
        statuses = []
        for run in _runs(args):
            if run.version not in documents:
                documents[run.version] = _document(base, run.version)
            document, name, mode = documents[run.version], run.name, run.mode
            config = _write_config(seeded, document, negative=mode == "negative", suffix=run.suffix)
            seed = args.negative_seed if mode == "negative" else args.seed
            exclude = nothing_to_break(document) if mode == "negative" else set()
            command = _schemathesis_command(args, base, token, config, mode=mode, seed=seed, suffix=run.suffix,
                                            exclude=exclude, version=run.version, phases=run.phases)
            shown = " ".join(part.replace(token, "<token>") for part in command)  # never print the token
            print(f"fuzz ({name} run):", shown, flush=True)
            started = time.monotonic()
            status = subprocess.call(
                command,
                cwd=ROOT,
                env={**os.environ, "PYTHONHASHSEED": "0", "SCHEMATHESIS_HOOKS": "tests.contract.fuzz_hooks"},
            )
            print(f"fuzz: the {name} run finished in {time.monotonic() - started:.0f} s with status {status}")
            statuses.append(status)
        _report_coverage(next(iter(documents.values())))
        return next((status for status in statuses if status), 0)
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def _parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--negative-seed", type=int, default=NEGATIVE_SEED, help="the negative run's seed")
    parser.add_argument("--no-negative", action="store_true", help="no negative run")
    parser.add_argument("--no-other-versions", action="store_true",
                        help="no run of the other wire versions' documents (OTHER_VERSIONS)")
    parser.add_argument("--max-examples", type=int, default=MAX_EXAMPLES)
    parser.add_argument("--server-workers", type=int, default=SERVER_WORKERS, help="gunicorn's processes")
    parser.add_argument("--workers", type=int, default=WORKERS, help="Schemathesis's concurrent workers")
    parser.add_argument("--negative-workers", type=int, default=NEGATIVE_WORKERS, help="the negative run's")
    parser.add_argument(
        "--keep-db", action="store_true", help="reuse the database as it is (faster, not reproducible)"
    )
    parser.add_argument(
        "--wire-version", help="a wire version (apps.core.pipeline.wire): its document, every request asking for it"
    )
    parser.add_argument("extra", nargs="*", help="more schemathesis arguments (after --)")
    return parser.parse_args(argv)


def _runs(args) -> list[Run]:
    if args.wire_version:
        runs = [replace(run, version=args.wire_version) for run in RUNS]
    else:
        runs = RUNS + ([] if args.no_other_versions else [
            Run(version, "all", f"-{version}", version, OTHER_VERSION_PHASES) for version in OTHER_VERSIONS
        ])
    return [run for run in runs if not (args.no_negative and run.mode == "negative")]


def nothing_to_break(document: dict) -> set[str]:
    """Operations with no invalid input to send: no body, and nothing but unconstrained strings in the
    path (any text is a valid username, tag or slug; an unknown one is a 404). The negative run leaves
    them out: Schemathesis cannot generate a case for them and reports that as an error."""
    ids = set()
    for item in document["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict) or "operationId" not in operation or "requestBody" in operation:
                continue
            if all(
                parameter["in"] == "path" and parameter.get("schema", {}).get("type") == "string"
                and not set(parameter["schema"]) - {"type", "description", "example", "examples"}
                for parameter in operation.get("parameters", [])
            ):
                ids.add(operation["operationId"])
    return ids


def _schemathesis_command(args, base: str, token: str, config: Path, *, mode: str = "all",
                          seed: int | None = None, suffix: str = "", exclude=(), version: str | None = None,
                          phases: str | None = None) -> list[str]:
    version = version or args.wire_version
    if phases is None and mode == "negative":
        phases = "fuzzing"
    # The document as `_document` saved it (the same bytes the server answered), with the server as the
    # base URL: Schemathesis loading it over HTTP gave up after its fixed 10 s read timeout whenever the
    # gunicorn process it reached was generating its first copy on a busy machine (a CI run failed so).
    command = [
        str(BIN / "schemathesis"), "--config-file", str(config), "run", str(_document_path(version)), "--url", base,
        "--checks", ",".join(CHECKS),
        "--mode", mode,
        "--seed", str(args.seed if seed is None else seed),
        # Hypothesis's example database would replay earlier runs' finds: each run starts clean instead.
        "--generation-database", "none",
        "--max-examples", str(args.max_examples),
        "--workers", str(args.negative_workers if mode == "negative" else args.workers),
        "--header", f"Authorization: Bearer {token}",
        *(["--header", f"Thingyard-Version: {version}"] if version else []),
        "--request-timeout", "30",
        "--no-color",
        "--report", "junit,json",
        "--report-junit-path", str(OUT / f"junit{suffix}.xml"),
        # the run's verdict with, per operation, how many generated valid cases the API accepted
        "--report-json-path", str(OUT / f"report{suffix}.json"),
    ]
    if phases is not None:
        # The negative run, only the fuzzing phase: the default run's coverage phase (mode "all") already
        # sends every deterministic invalid boundary case the negative run's coverage phase would, which
        # made the second run's first two minutes a repeat; what this run adds is random invalid input from
        # a seed of its own (issue 23: CI in half the time). The other versions' runs: OTHER_VERSION_PHASES.
        command += ["--phases", phases]
    if mode == "negative":
        # With no undeclared parameters and nothing fixed, an operation whose only parameter is a string
        # in the path has few invalid values Hypothesis can draw: its health check would fail the run for
        # the generator's sake, not the API's.
        command += ["--suppress-health-check", "filter_too_much"]
    for operation_id in sorted(EXCLUDED_OPERATIONS | set(exclude)):
        command += ["--exclude-operation-id", operation_id]
    return command + list(args.extra)


def _document(base: str, version: str | None = None) -> dict:
    query = f"?version={version}" if version else ""
    with urllib.request.urlopen(f"{base}/openapi.json{query}", timeout=30) as response:
        document = json.load(response)
    _document_path(version).write_text(json.dumps(document, indent=1))
    return document


def _document_path(version: str | None) -> Path:
    """Where `_document` saves a wire version's document (None: the default version's)."""
    return OUT / (f"openapi-{version}.json" if version else "openapi.json")


def _report_coverage(document: dict) -> None:
    """How many operations succeeded at least once (.run/fuzz/coverage.txt has each one's statuses)."""
    with open(OUT / "access.log") as lines:
        table, reached, total = fuzz_coverage.report(document, lines, EXCLUDED_OPERATIONS)
    (OUT / "coverage.txt").write_text(table)
    print(
        f"fuzz: {reached} of {total} operations answered a success (2xx, or a download's 302) at least "
        f"once; statuses per operation in {OUT / 'coverage.txt'}"
    )


def _recreate_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not name.replace("_", "").isalnum():
        raise SystemExit(f"fuzz: refusing odd database name {name!r}")
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    template = _test_run_template(parts)
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if template is None:
            connection.execute(f'CREATE DATABASE "{name}"')
            return
        settings_dict, run_id = template
        with dbtemplate.run_lock(dbtemplate.template_name(settings_dict)):
            source = dbtemplate.ensure_template(settings_dict, run_id)
            connection.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')


def _test_run_template(fuzz_url) -> tuple[dict, str] | None:
    """The test run's migrated template database to copy (tests/dbtemplate.py), when `.ci/run` runs the
    fuzz beside `make test` (THINGYARD_TEST_RUN_ID, the pytest run's --testrunuid) on the same server:
    the suite's workers copy the same one, so the migrations run once for both (the harness's `migrate`
    then finds nothing to do). Otherwise (None) the fuzz database is migrated from nothing, as alone."""
    run_id = os.environ.get("THINGYARD_TEST_RUN_ID", "")
    if not run_id:
        return None
    # The test settings' own reading of DATABASE_URL (django-environ), and their default.
    settings_dict = environ.Env.db_url_config(
        os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/thingyard"
    )
    if (settings_dict["HOST"], int(settings_dict["PORT"] or 5432)) != (fuzz_url.hostname, fuzz_url.port or 5432):
        return None
    return settings_dict, run_id


def _seed(env) -> dict:
    """tests/contract/seed.py in the fuzz database: the token and the ids of real objects."""
    code = (
        "import django, json; django.setup()\n"
        "from apps.demo.services import object_store_ensure_bucket\n"
        "from tests.contract.seed import fuzz_seed\n"
        "assert object_store_ensure_bucket(), 'object store unreachable'\n"
        "print(json.dumps(fuzz_seed()))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"fuzz: seeding failed:\n{result.stdout}{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _write_config(seeded: dict, document: dict, *, negative: bool = False, suffix: str = "") -> Path:
    """schemathesis.toml for this run: no cache between runs (a replayed old crash would make runs
    differ); a dictionary of real values for each path parameter, used half of the time; and for the
    operations the seed names, their own objects (fixed path parameters) and dictionaries of real body
    and query values. The negative run adds no undeclared parameters (RUNS says why) and fixes no
    objects."""
    _check_operations(seeded["operations"], document)
    dictionaries = {
        name: values for name, values in {**seeded["path_values"], **seeded["dictionaries"]}.items() if values
    }
    lines = ["[cache]", "enabled = false", ""]
    if negative:
        lines += ["[generation]", "allow-extra-parameters = false", ""]
    for name, values in sorted(dictionaries.items()):
        lines += [f"[dictionaries.{name}]", f"values = {json.dumps(sorted(set(values), key=str))}", ""]
    lines.append("[parameters]")
    for name in sorted(seeded["path_values"]):
        lines.append(f'"path.{name}" = {_binding(name)}')
    if "category" in dictionaries:  # the search filter, in every operation that has it
        lines.append(f'"query.category" = {_binding("category")}')
    # The fixed objects give valid cases depth; the negative run makes every case invalid, and an operation
    # whose only parameter is fixed would leave it nothing to break (Hypothesis's filter_too_much).
    for operation_id, parameters in sorted(() if negative else seeded["operations"].items()):
        entries = ", ".join(
            f'"{key}" = {_binding(value) if key.startswith(("body.", "query.")) else json.dumps(value)}'
            for key, value in sorted(parameters.items())
        )
        lines += ["", "[[operations]]", f'include-operation-id = "{operation_id}"']
        lines.append(f"parameters = {{ {entries} }}")
    config = OUT / f"schemathesis{suffix}.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


def _binding(dictionary: str) -> str:
    return f'{{ dictionary = "{dictionary}", probability = {DICTIONARY_PROBABILITY} }}'


def _check_operations(operations: dict[str, dict], document: dict) -> None:
    """Each operation the seed names exists and has the parameters it fixes (operationIds come from
    drf-spectacular: a renamed view must not silently turn a fixed object back into random ids)."""
    known = {}
    for item in document["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "operationId" in operation:
                known[operation["operationId"]] = operation
    for operation_id, parameters in operations.items():
        operation = known.get(operation_id)
        if operation is None:
            raise SystemExit(f"fuzz: the seed names {operation_id!r}, which is not in the OpenAPI document")
        names = {f"{p['in']}.{p['name']}" for p in operation.get("parameters", [])}
        for key in parameters:
            if not key.startswith("body.") and key not in names:
                raise SystemExit(f"fuzz: {operation_id} has no parameter {key!r}")


def _step(name: str, command: list[str], env) -> None:
    with open(OUT / f"{name}.log", "w") as log:
        if subprocess.call(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT) != 0:
            raise SystemExit(f"fuzz: {name} failed, see {OUT / (name + '.log')}")


def _start(name: str, command: list[str], env) -> subprocess.Popen:
    log = open(OUT / f"{name}.log", "w")  # noqa: SIM115 (closed with the process)
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"fuzz: nothing listens on port {port}")


def _wait_for_http(url: str, timeout: float = 240) -> None:
    # Generous: in CI the fuzz run starts beside the test workers and lint on two cores, where gunicorn's
    # workers have been seen to need more than a minute to import the project.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"fuzz: {url} did not answer 200, see {OUT / 'gunicorn.log'}")


if __name__ == "__main__":
    sys.exit(main())
