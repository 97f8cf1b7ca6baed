import pytest
from django.test import Client

from apps.oauth import services as oauth_services
from apps.oauth.tests.factories import ApplicationFactory

APP_URL = "https://app.example.com/thing-app/"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: end-to-end tests in headless Chromium (Playwright); need /usr/bin/chromium"
    )


@pytest.fixture
def thing_app(db):
    """An approved Thing app (spec §4.11: what a Thing page lists)."""
    return ApplicationFactory(
        name="Part Painter",
        description="Paints your parts.",
        app_type="thing",
        application_url=APP_URL,
        redirect_uris="https://app.example.com/callback",
        authorization_grant_type="implicit",
    )


@pytest.fixture
def consent(thing_app, user):
    return oauth_services.authorization_grant(application=thing_app, user=user)


@pytest.fixture
def browser(user):
    """`user`'s browser session (CSRF checks on, as in a real browser)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client
