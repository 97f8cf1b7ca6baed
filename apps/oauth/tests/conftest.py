import pytest
from django.test import Client

from apps.oauth.tests.factories import ApplicationFactory

@pytest.fixture
def browser(user):
    """A browser session logged in as `user`."""
    client = Client()
    client.force_login(user)
    return client

@pytest.fixture
def pending_app(db):
    return ApplicationFactory(approval_state="pending")
