"""What the HTTP server answers itself is the API's JSON error too (docs/decisions.md: never an HTML page);
found by `make fuzz`, which sent a 5,000-character query string to a live gunicorn."""
import json
import urllib.request

from tests.live_server import fetch, gunicorn_running


def test_gunicorn_s_own_errors_are_the_json_error_body_and_long_lines_reach_the_api():
    with gunicorn_running() as base:
        long_line = fetch(f"{base}/groups/?search=" + "a" * 6000)
        too_long = fetch(f"{base}/groups/?search=" + "a" * 9000)
        huge_header = fetch(urllib.request.Request(f"{base}/users/me", headers={"X-Big": "b" * 9000}))

    status, headers, body = long_line
    assert (status, headers["Content-Type"]) == (401, "application/json")  # Django's answer: no token
    for status, headers, body in (too_long, huge_header):
        assert status in (400, 431)
        assert headers["Content-Type"] == "application/json"
        error = json.loads(body)
        assert set(error) == {"error", "code", "type"} and error["code"] == status
        assert headers["X-Error"] == error["error"]
