"""Every API operation needs a valid token (spec §5): none, an unknown, expired or revoked one, another
scheme, or a session cookie alone are all 401, on every operation of the OpenAPI document."""
from datetime import timedelta

import pytest
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from apps.accounts import services
from tests.support.api import token_client


@pytest.fixture(scope="module")
def documented_operations():
    document = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method in ("get", "post", "patch", "put", "delete")
    )


def _bad_callers(world, user_b, app_x, browser_b):
    expired = token_client(user_b, app_x)
    expired.token.expires = timezone.now() - timedelta(seconds=1)
    expired.token.save()
    revoked = token_client(user_b, app_x)
    revoked.token.revoke()
    basic, other_scheme, unknown, unknown_query = APIClient(), APIClient(), APIClient(), APIClient()
    basic.credentials(HTTP_AUTHORIZATION="Basic YWxpY2VfYTpwYXNzd29yZA==")
    other_scheme.credentials(HTTP_AUTHORIZATION=f"Token {expired.token.token}")
    unknown.credentials(HTTP_AUTHORIZATION="Bearer " + "0" * 32)
    return {
        "anonymous": (APIClient(), ""),
        "expired": (expired, ""),
        "revoked": (revoked, ""),
        "basic": (basic, ""),
        "other scheme": (other_scheme, ""),
        "unknown": (unknown, ""),
        "unknown in the query": (unknown_query, "access_token=" + "f" * 32),
        "session cookie only": (browser_b, ""),
    }


def test_every_operation_refuses_every_caller_without_a_valid_token(
    documented_operations, world, user_b, app_x, browser_b
):
    callers = _bad_callers(world, user_b, app_x, browser_b)
    values = world.path_values()
    accepted = []
    for method, path in documented_operations:
        url = path.format(**values)
        for name, (client, query) in callers.items():
            response = getattr(client, method.lower())(url + ("?" + query if query else ""),
                                                       content_type="application/json")
            if response.status_code != 401 or response.get("WWW-Authenticate") != "Bearer":
                accepted.append(f"{method} {path} [{name}]: {response.status_code}")
    assert documented_operations and accepted == []


def test_a_suspended_user_s_token_is_refused(a_via_x, user_a):
    assert a_via_x.get("/users/me").status_code == 200
    services.user_suspend(user=user_a, reason="spam")
    assert a_via_x.get("/users/me").status_code == 401
