"""Fixtures of the read-path tests."""
import pytest


@pytest.fixture(params=["caches off", "caches on"])
def caches(request, settings):
    """Each test twice: the request-path caches off, then on as in production (True when on)."""
    on = request.param == "caches on"
    settings.THING_BODY_CACHE_SECONDS = 600 if on else 0
    settings.OAUTH_TOKEN_CACHE_SECONDS = 5 if on else 0
    return on
