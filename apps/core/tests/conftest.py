"""Fixtures of the API-conventions tests."""
import pytest
from rest_framework.test import APIClient

from apps.oauth.tests.factories import AccessTokenFactory

@pytest.fixture
def app_client(application):
    """An APIClient with the application's own read-only token (no user; docs/decisions.md: OAuth)."""
    token = AccessTokenFactory(user=None, application=application)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token.token}")
    client.token = token
    return client
