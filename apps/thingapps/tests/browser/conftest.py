"""Fixtures of the Thing apps' end-to-end tests: the example Thing app (examples/thing-app) on its own
origin (http://127.0.0.1:<port>). Chromium, the live server and the signed-in pages are the shared
browser fixtures (tests/browser/fixtures.py)."""

import importlib.util
import threading
from pathlib import Path

import pytest
from django.conf import settings

EXAMPLE_APP = Path(settings.BASE_DIR) / "examples" / "thing-app"


def _serve(server):
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def example_app(live_server):
    """The example Thing app (examples/thing-app/serve.py) on 127.0.0.1, loading the SDK from the site."""
    spec = importlib.util.spec_from_file_location("example_thing_app", EXAMPLE_APP / "serve.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server = module.make_server(site_url=live_server.url, host="127.0.0.1", port=0)
    _serve(server)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
