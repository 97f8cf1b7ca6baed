"""The demo's tests: the quick start's fixtures are tests/support/quickstart.py's (a plugin of the root
conftest.py: the quick start's SQLite search uses them too); the seeded database of the seed's tests."""
import os

import pytest


@pytest.fixture(scope="module")
def demo_seeded(django_db_setup, django_db_blocker, _object_store):
    """`seed_demo` run twice (the second run must find everything there: idempotent) once per module, in a
    transaction the module's tests run inside (pytest-django's `db` nests each test in a savepoint of it,
    rolled back after the test) and rolled back after the module (issue 23: CI in half the time).

    The seed draws and processes its photos and models (Pillow, the STL renders): about the CPU of a
    hundred ordinary tests, which each of these tests used to spend again on a fresh database. Each test
    still runs `seed_demo`/`demo_seed()` where it did (the later runs find the rows and the stored objects
    and add nothing), and reads or changes the seeded rows only inside its own savepoint. The modules
    that use it each keep their tests in one xdist group (`demo-seed`, `site-crawl`), so one worker seeds each
    module once; two groups can run on two workers at once."""
    from django.core.management import call_command
    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            with open(os.devnull, "w") as quiet:
                call_command("seed_demo", stdout=quiet)
                call_command("seed_demo", stdout=quiet)  # idempotent: nothing twice
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
