"""What the delivery log says about a failed attempt: plain words for the developer, the raw exception
for staff (docs/decisions.md: Webhooks, the delivery log), and the request and answer as they were."""
import socket
import ssl

import pytest
import urllib3

from apps.oauth.tests.factories import ApplicationFactory
from apps.webhooks import delivery as http
from apps.webhooks import services
from apps.webhooks.models import Delivery

pytestmark = pytest.mark.django_db


def _deliver(app) -> Delivery:
    recorded = services.webhook_event_record(application=app, event="order_created", payload={"order": {"id": 7}})
    delivery = services.webhook_deliver(delivery_id=recorded.pk)
    assert delivery is not None
    return delivery


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_refused_connection_is_said_in_plain_words_and_the_raw_text_is_kept_for_staff(allow_private):
    port = _closed_port()
    delivery = _deliver(ApplicationFactory(webhook_url=f"http://127.0.0.1:{port}/hook"))
    attempt = delivery.attempts.get()
    assert attempt.error == f"Connection refused: nothing accepts connections at 127.0.0.1:{port}."
    assert "Failed to establish a new connection" in attempt.error_detail
    assert delivery.last_error == attempt.error


def test_an_http_500_is_named_as_the_endpoints_answer(hook_app, receiver, allow_private):
    receiver.respond((500, {"X-Trace": "abc"}, b"kaput"))
    delivery = _deliver(hook_app)
    attempt = delivery.attempts.get()
    assert attempt.error == "HTTP 500 from the endpoint."
    assert delivery.last_error == "HTTP 500 from the endpoint."
    assert attempt.error_detail == ""
    assert attempt.response_headers["X-Trace"] == "abc"
    assert attempt.response_excerpt == "kaput"


def test_the_attempt_keeps_the_request_headers_it_sent(hook_app, receiver, allow_private):
    delivery = _deliver(hook_app)
    attempt = delivery.attempts.get()
    sent = receiver.requests[0]["headers"]
    assert attempt.request_headers["webhook-id"] == delivery.message_id == sent["webhook-id"]
    assert attempt.request_headers["webhook-signature"] == sent["webhook-signature"]
    assert {name.lower() for name in attempt.request_headers} >= {"webhook-id", "webhook-timestamp", "webhook-signature"}


def test_a_timeout_names_the_limit(hook_app, receiver, allow_private, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    receiver.respond(("sleep", 2))
    attempt = _deliver(hook_app).attempts.get()
    assert attempt.error == "Timed out after 0.5 s."


def test_tls_to_a_plain_http_endpoint_is_a_failed_handshake(receiver, allow_private):
    app = ApplicationFactory(webhook_url=f"https://127.0.0.1:{receiver.port}/hook")
    attempt = _deliver(app).attempts.get()
    assert attempt.error == "TLS handshake with 127.0.0.1 failed."
    assert attempt.error_detail


def test_a_name_that_does_not_resolve_is_name_not_found(monkeypatch, allow_private):
    def no_such_name(host, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)
    attempt = _deliver(ApplicationFactory(webhook_url="https://hooks.nowhere.test/h")).attempts.get()
    assert attempt.error == "Name not found: hooks.nowhere.test does not resolve to an address."
    assert "Name or service not known" in attempt.error_detail


def _wrapped(cause: BaseException) -> BaseException:
    """As urllib3 raises it: its own exception, the socket or ssl error as the cause."""
    try:
        try:
            raise cause
        except BaseException as inner:
            raise urllib3.exceptions.SSLError(inner) if isinstance(inner, ssl.SSLError) else \
                urllib3.exceptions.ProtocolError("Connection aborted.", inner) from inner
    except BaseException as outer:
        return outer


@pytest.mark.parametrize(
    ("cause", "expected"),
    [
        (ConnectionRefusedError(111, "Connection refused"), "Connection refused: nothing accepts connections at h.example:443."),
        (ConnectionResetError(104, "Connection reset by peer"), "Connection reset by the endpoint before it answered."),
        (OSError(101, "Network is unreachable"), "Network unreachable: h.example:443 cannot be reached from here."),
        (socket.timeout("timed out"), "Timed out after 10 s."),
        (ssl.SSLError(1, "wrong version number"), "TLS handshake with h.example failed."),
    ],
)
def test_each_failure_is_described_in_plain_words(cause, expected):
    assert http.describe_failure(_wrapped(cause), host="h.example", port=443, timeout=10.0) == expected


def test_an_invalid_certificate_says_why():
    cause = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")
    cause.verify_message = "certificate has expired"
    described = http.describe_failure(_wrapped(cause), host="h.example", port=443, timeout=10.0)
    assert described == "TLS certificate invalid: certificate has expired (h.example)."


def test_the_admin_shows_staff_the_raw_detail(allow_private):
    from apps.webhooks.admin import AttemptInline

    assert "error_detail" in AttemptInline.fields
