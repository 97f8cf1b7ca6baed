"""Long tests first (issue 23: CI in half the time). A pytest plugin (the root conftest.py loads it).

pytest-django orders the collection: tests using the database first, transactional ones next, the rest
last; xdist's loadgroup hands out its serial groups first and then the single tests in that order. A test
that runs for half a minute on its own without the database (a whole quick start: runserver, a worker,
clients) therefore started in the last minute of the run, and the run ended with one worker busy and the
others done. Tests marked `long` move to the front of the collection (keeping their order among
themselves), so they start beside the serial groups and the short tests fill the end.

Moving them is safe for the database: pytest-django's order is about tests that share the test database
(a transactional test empties it), and a `long` test must not use it (checked below).
"""
import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "long: runs for half a minute or more on its own, without the test database (a whole quick start): "
        "it starts early in the run (tests/support/ordering.py)",
    )


@pytest.hookimpl(trylast=True)  # after pytest-django's order (its hook runs first)
def pytest_collection_modifyitems(items):
    long: list[pytest.Item] = []
    rest: list[pytest.Item] = []
    for item in items:
        (long if item.get_closest_marker("long") is not None else rest).append(item)
    for item in long:
        names = getattr(item, "fixturenames", ())
        if item.get_closest_marker("django_db") is not None or {"db", "transactional_db"} & set(names):
            raise pytest.UsageError(f"{item.nodeid}: a `long` test must not use the test database")
    items[:] = long + rest
