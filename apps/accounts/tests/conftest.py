"""Fixtures of the accounts tests."""

import pytest

from apps.oauth.tests.factories import ApplicationFactory

@pytest.fixture
def unapproved_application(db):
    return ApplicationFactory(approval_state="pending")
