from apps.core.pipeline.handlers import x_error_header


def test_x_error_keeps_plain_reasons_as_they_are():
    assert x_error_header("Not Found") == "Not Found"


def test_x_error_replaces_newlines_and_non_ascii_so_the_header_is_always_valid():
    assert x_error_header("bad tag: caf\u00e9\r\nSet-Cookie: x=1") == "bad tag: caf???Set-Cookie: x=1"


def test_a_validation_message_quoting_client_input_never_breaks_the_response(api, user):
    # The user's PATCH echoes a bad choice back in the message; a newline in it must not cause a 500.
    response = api.patch("/users/me", {"default_license": "nope\ncc"}, format="json")
    assert response.status_code == 400
    assert "\n" not in response["X-Error"]
    assert response.json()["type"] == "VALIDATION_FAILED"
