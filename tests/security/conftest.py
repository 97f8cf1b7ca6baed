"""Fixtures of the security suite: user A's objects (tests/world.py) and the callers that must not
reach them."""
import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from tests.support.api import token_client
from apps.oauth.tests.factories import ApplicationFactory
from tests.world import world_build


@pytest.fixture
def app_x(db):
    """The application user A works through."""
    return ApplicationFactory(name="App X")


@pytest.fixture
def app_y(db):
    """Another application of the same user A."""
    return ApplicationFactory(name="App Y", application_url="https://y.example.org",
                              redirect_uris="https://y.example.org/callback")


@pytest.fixture
def user_a(db):
    return UserFactory(username="alice_a")


@pytest.fixture
def user_b(db):
    return UserFactory(username="bob_b")


# The callback URL the OAuth flows' app registers (test_oauth, test_scopes, test_tokens_at_rest).
REGISTERED = "https://app.example.com/callback"


@pytest.fixture
def app(db):
    """An app whose registered callback is REGISTERED, for the authorization-code flows."""
    return ApplicationFactory(redirect_uris=REGISTERED)


@pytest.fixture
def browser(user_a):
    """User A's signed-in browser session (the consent page, the site's forms)."""
    client = Client()
    client.force_login(user_a)
    return client


@pytest.fixture
def world(user_a, app_x, s3):
    """One of every object, owned by A, the app-scoped ones made through app X."""
    return world_build(owner=user_a, app=app_x)


@pytest.fixture
def a_via_x(user_a, app_x):
    return token_client(user_a, app_x)


@pytest.fixture
def a_via_y(user_a, app_y):
    return token_client(user_a, app_y)


@pytest.fixture
def b_via_x(user_b, app_x):
    return token_client(user_b, app_x)


@pytest.fixture
def browser_b(user_b):
    """B's browser session (cookie only, no token)."""
    client = Client()
    client.force_login(user_b)
    return client
