"""Assertions shared by the accounts API tests."""


def assert_error(response, status: int, error_type: str | None = None) -> dict:
    """DECISIONS.md: every error is JSON {error, code, type} with the reason repeated in X-Error."""
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == status
    assert response["X-Error"] == body["error"]
    if status in (401, 403, 404):
        assert body["error"] == {401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}[status]
    if error_type is not None:
        assert body["type"] == error_type
    return body


def assert_unauthorized(response) -> None:
    assert_error(response, 401, "UNAUTHORIZED")
    assert response.json() == {"error": "Unauthorized", "code": 401, "type": "UNAUTHORIZED"}
    assert response["WWW-Authenticate"] == "Bearer"
