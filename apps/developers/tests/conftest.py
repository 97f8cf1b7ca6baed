import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.factories import ApplicationFactory

@pytest.fixture
def own_app(owner):
    """A pending app of `owner` (the factory's default is approved)."""
    return ApplicationFactory(user=owner, approval_state="pending")

@pytest.fixture
def moderator(db):
    return UserFactory(is_staff=True, is_superuser=True)

@pytest.fixture
def moderator_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client
