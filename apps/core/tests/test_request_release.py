"""A request's objects die with it (apps.core.pipeline.views._release): an API answer leaves no reference
cycle behind for Python's cycle collector, whose collections over a list page's leftovers cost about a
tenth of its CPU (issue 24, first reads). Driven through the production WSGI handler, not the test client,
which ties its own cycles to every response."""
import gc
import io
import sys

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from apps.core.pipeline.wsgi import ResolvedOnceWSGIHandler
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def wsgi_get(api):
    handler = ResolvedOnceWSGIHandler()
    authorization = api._credentials["HTTP_AUTHORIZATION"]

    def get(path: str, query: str = "") -> tuple[str, bytes]:
        environ = {
            "REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": "testserver",
            "SERVER_PORT": "80", "HTTP_HOST": "testserver", "HTTP_AUTHORIZATION": authorization,
            "wsgi.input": io.BytesIO(b""), "wsgi.url_scheme": "http", "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.errors": sys.stderr,
        }
        status = []
        # As Django's test client: the test's transaction holds the connection, which close_old_connections
        # would close at the request's start and end.
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        try:
            def start_response(line, headers, exc_info=None):
                status.append(line)
                return lambda data: None

            response = handler(environ, start_response)
            try:
                body = b"".join(response)
            finally:
                response.close()  # what a WSGI server does once the answer is sent
        finally:
            request_started.connect(close_old_connections)
            request_finished.connect(close_old_connections)
        return status[0], body

    return get


def _cyclic_garbage(make_requests) -> list:
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        make_requests()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


@pytest.mark.parametrize("path, query", [
    ("/newest/", "per_page=5"),
    ("/users/me", ""),
    ("/things/{thing}/", ""),
    ("/things/999999999/", ""),  # an error answer too
    ("/newest/", "per_page=5&callback=cb"),  # JSON-P
])
def test_an_api_answer_leaves_no_reference_cycle(wsgi_get, path, query):
    thing = ThingFactory()
    for _ in range(4):
        ThingFactory()
    path = path.format(thing=thing.pk)
    wsgi_get(path, query)  # first use: caches, compiled statements

    def requests():
        for _ in range(3):
            status, body = wsgi_get(path, query)
            assert status[:3] in ("200", "404") and body

    garbage = _cyclic_garbage(requests)
    kinds = sorted({type(obj).__name__ for obj in garbage})
    assert garbage == [], kinds


def test_the_answer_is_unchanged_by_the_release(api, user, wsgi_get):
    ThingFactory()
    status, body = wsgi_get("/newest/", "per_page=5")
    assert status.startswith("200")
    assert api.get("/newest/?per_page=5").content == body
    me = api.get("/users/me")
    assert me.data == me.json() and me.data["name"] == user.username  # the client's view survives close()
