"""Fixtures of the API-conventions tests."""
import pytest

from tests.support.api import bearer_client
from apps.oauth.tests.factories import AccessTokenFactory

@pytest.fixture
def app_client(application):
    """An APIClient with the application's own read-only token (no user; docs/decisions.md: OAuth)."""
    return bearer_client(AccessTokenFactory(user=None, application=application))
