"""Test fixtures for the whole suite (tests/ and apps/*/tests/): moto S3 on loopback, token clients."""
import socket

import boto3
import pytest
from django.test import Client, TransactionTestCase
from rest_framework.test import APIClient

from apps.accounts.tests.factories import UserFactory
from tests.support.api import ANONYMOUS, MISSING, OTHER_APP, STRANGER, access_check, bearer_client
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory
from tests.support import flush

# A transactional test's flush (pytest-django's TransactionTestCase): the same emptied database for a
# fraction of Django's flush's cost (tests/support/flush.py).
TransactionTestCase._fixture_teardown = flush.fixture_teardown  # type: ignore[attr-defined]

# Chromium, the live server and signed-in pages for the end-to-end tests (tests/browser, apps/*/tests/browser).
# The quick start's migrated SQLite database, shared by its tests (tests/support/quickstart.py).
pytest_plugins = ["tests.browser.fixtures", "tests.support.quickstart", "tests.support.ordering"]


# Under pytest-xdist (`make test`: `-n 3 --dist loadgroup`) these run one after another on one worker,
# each kind beside the other worker's tests: the fault stack is built once per worker that runs a fault
# test (a private PostgreSQL, Redis and gunicorn), and two Chromiums drawing WebGL in software at once
# would starve each other of the 2 cores.
# The browser tests are two such groups: those that draw the 3D viewer (marked `webgl`) and the rest, so
# two Chromiums run at once but never two drawing WebGL.
SERIAL_GROUPS = {"faults": "faults", "webgl": "browser-webgl", "browser": "browser"}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "webgl: a browser test that draws the 3D viewer (software WebGL): one at a time (SERIAL_GROUPS)"
    )
    config.addinivalue_line(
        "markers",
        "caches_off: the request-path caches off for this test (the token row, the fast path, Thing bodies "
        "and kept pages): a query-count test of the uncached path",
    )


@pytest.hookimpl(tryfirst=True)  # before xdist's loadgroup reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        for marker, group in SERIAL_GROUPS.items():
            if item.get_closest_marker(marker) is not None:
                item.add_marker(pytest.mark.xdist_group(group))
                break


@pytest.fixture(scope="session")
def django_db_setup(request, django_test_environment, django_db_blocker, django_db_modify_db_settings):
    """pytest-django's test database setup, except that under xdist every worker's database is a copy of
    one template migrated once per run (tests/dbtemplate.py) instead of a migration of its own."""
    from django.conf import settings
    from django.db import connections
    from django.test.utils import setup_databases, teardown_databases

    from tests import dbtemplate

    workerinput = getattr(request.config, "workerinput", None)
    verbosity = request.config.option.verbose
    default = settings.DATABASES["default"]
    base = {**default, "NAME": default["NAME"]}
    with django_db_blocker.unblock():
        if workerinput is None:
            db_cfg = setup_databases(verbosity=verbosity, interactive=False)
        else:
            with dbtemplate.run_lock(dbtemplate.template_name(base)):
                template = dbtemplate.ensure_template(base, workerinput["testrunuid"])
                default.setdefault("TEST", {})["TEMPLATE"] = template
                connections["default"].settings_dict.setdefault("TEST", {})["TEMPLATE"] = template
                # The worker's test database (pytest-django names it test_<name>_gwN).
                test = connections["default"].settings_dict["TEST"]
                dbtemplate.drop_leftover(base, test.get("NAME") or f"test_{default['NAME']}")
                db_cfg = setup_databases(verbosity=verbosity, interactive=False)
        flush.remember("default")
    yield
    with django_db_blocker.unblock():
        if workerinput is None:
            teardown_databases(db_cfg, verbosity=verbosity)
        else:
            # Everything but the DROP (keepdb: connections closed, names restored), which a detached
            # process does (tests/dbtemplate.py drop_in_background says why).
            names = [connection.settings_dict["NAME"] for connection, _, destroy in db_cfg if destroy]
            teardown_databases(db_cfg, verbosity=verbosity, keepdb=True)
            dbtemplate.drop_in_background(base, names)


@pytest.fixture
def caches_off(settings):
    """The request-path caches off, as the settings of issue 17 allow (0 seconds): every request takes
    the uncached path. The suite runs with production's cache settings otherwise (config/settings/test.py)."""
    settings.OAUTH_TOKEN_CACHE_SECONDS = 0
    settings.THING_BODY_CACHE_SECONDS = 0
    return settings


@pytest.fixture(autouse=True)
def _caches_off_marker(request):
    if request.node.get_closest_marker("caches_off") is not None:
        request.getfixturevalue("caches_off")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def s3_server():
    """A real S3-compatible server (moto) on loopback for the whole session, with the bucket created."""
    from moto.server import ThreadedMotoServer

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture(scope="session", autouse=True)
def _object_store(s3_server, django_db_blocker):
    from django.conf import settings

    settings.AWS_S3_ENDPOINT_URL = s3_server
    settings.S3_ENDPOINT_URL = s3_server
    # Django's default storage (django-storages S3) reads the endpoint when it is built: build it anew.
    from django.core.files.storage import default_storage, storages
    from django.utils.functional import empty

    # Django's private caches of the built storages; django-stubs does not declare them.
    storages._storages.pop("default", None)  # type: ignore[attr-defined]
    default_storage._wrapped = empty  # type: ignore[attr-defined]
    client = boto3.client(
        "s3",
        endpoint_url=s3_server,
        region_name=settings.S3_REGION,
        aws_access_key_id=settings.S3_ACCESS_KEY_ID,
        aws_secret_access_key=settings.S3_SECRET_ACCESS_KEY,
    )
    client.create_bucket(Bucket=settings.S3_BUCKET)
    yield client


@pytest.fixture
def s3(_object_store):
    return _object_store


@pytest.fixture(autouse=True)
def _celery_joins_allowed():
    """A test that builds a Celery worker in this process (its pool component) leaves Celery's
    process-wide "joining a result would block" flag set, and every later eager `.apply().get()` on the
    same xdist worker then raises "Never call result.get() within a task!". Each test starts without it."""
    from celery._state import _set_task_join_will_block

    _set_task_join_will_block(False)
    yield


@pytest.fixture(autouse=True)
def _clean_redis():
    """Each test starts with an empty rate-limit and cache state in the real Redis."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def other_user(db):
    return UserFactory()


@pytest.fixture
def application(db):
    return ApplicationFactory()


@pytest.fixture
def owner(db):
    """A user who owns what a test is about (an app, a Thing); signed in by `owner_client`."""
    return UserFactory()


@pytest.fixture
def owner_client(owner):
    """A browser session (site pages, developer portal) signed in as `owner`."""
    client = Client()
    client.force_login(owner)
    return client


@pytest.fixture
def stranger_client(db):
    """A browser session of some other user."""
    client = Client()
    client.force_login(UserFactory())
    return client


@pytest.fixture
def anon_client():
    return APIClient()


@pytest.fixture
def client_for(db, application):
    """client_for(user) → an APIClient sending a real Bearer token of `user` for `application`."""

    def make(user, app=None):
        return bearer_client(AccessTokenFactory(user=user, application=app or application))

    return make


@pytest.fixture
def api(client_for, user):
    """The default authenticated client: `user`'s token."""
    return client_for(user)


@pytest.fixture
def access(client_for, user):
    """access(endpoint, caller, obj, **path_values): one case of an endpoint's access matrix
    (tests.support.api.Access) on `obj`, an object of `user` (whose token `api` sends)."""
    clients: dict = {}
    callers = {
        ANONYMOUS: lambda: APIClient(),
        STRANGER: lambda: client_for(UserFactory()),
        MISSING: lambda: client_for(user),
        OTHER_APP: lambda: client_for(user, ApplicationFactory()),
    }

    def check(endpoint, caller, obj=None, **path_values):
        if caller not in clients:
            clients[caller] = callers[caller]()
        return access_check(endpoint, caller, obj, clients=clients, **path_values)

    return check
