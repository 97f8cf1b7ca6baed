"""Standard Webhooks signing and verification (docs/decisions.md: Webhooks)."""
import base64
import hashlib
import hmac
from typing import Any

import pytest

from apps.webhooks import signing

# The example of the Standard Webhooks specification and its reference libraries.
VECTOR: dict[str, Any] = {
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    "message_id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "timestamp": 1614265330,
    "body": b'{"test": 2432232314}',
    "signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
}


def test_it_signs_the_published_standard_webhooks_example():
    args = {k: VECTOR[k] for k in ("secret", "message_id", "timestamp", "body")}
    assert signing.sign(**args) == VECTOR["signature"]


def test_the_signature_is_hmac_sha256_of_id_timestamp_body_under_the_decoded_key():
    key = b"0123456789abcdef0123"
    secret = "whsec_" + base64.b64encode(key).decode()
    expected = base64.b64encode(hmac.new(key, b"msg_1.1700000000.{}", hashlib.sha256).digest()).decode()
    assert signing.sign(secret=secret, message_id="msg_1", timestamp=1700000000, body=b"{}") == "v1," + expected


def test_headers_carry_id_timestamp_signature_content_type_and_user_agent():
    headers = signing.headers(secret=VECTOR["secret"], message_id="msg_x", timestamp=1700000000, body=b"{}")
    assert headers["webhook-id"] == "msg_x"
    assert headers["webhook-timestamp"] == "1700000000"
    assert headers["webhook-signature"].startswith("v1,")
    assert headers["Content-Type"] == "application/json"
    assert headers["User-Agent"] == "Thingyard-Webhooks/1"


def test_the_body_is_compact_json_with_sorted_keys():
    assert signing.body_bytes({"order": {"id": "1"}, "event": "order_created"}) == (
        b'{"event":"order_created","order":{"id":"1"}}'
    )


def _received(now=VECTOR["timestamp"]):
    headers = {
        "Webhook-Id": VECTOR["message_id"],
        "Webhook-Timestamp": str(VECTOR["timestamp"]),
        "Webhook-Signature": VECTOR["signature"],
    }
    return dict(secret=VECTOR["secret"], headers=headers, body=VECTOR["body"], now=now)


def test_verify_accepts_the_example_within_the_tolerance():
    assert signing.verify(**_received(now=VECTOR["timestamp"] + 299)) == {"test": 2432232314}


@pytest.mark.parametrize("skew", [301, -301])
def test_verify_rejects_a_timestamp_outside_the_tolerance(skew):
    with pytest.raises(signing.InvalidSignature):
        signing.verify(**_received(now=VECTOR["timestamp"] + skew))


def test_verify_rejects_a_changed_body():
    received = _received()
    received["body"] = b'{"test": 1}'
    with pytest.raises(signing.InvalidSignature):
        signing.verify(**received)


def test_verify_rejects_another_secret():
    received = _received()
    received["secret"] = "whsec_" + base64.b64encode(b"another key").decode()
    with pytest.raises(signing.InvalidSignature):
        signing.verify(**received)


def test_verify_accepts_any_of_several_signatures_as_during_a_secret_rotation():
    received = _received()
    received["headers"]["Webhook-Signature"] = "v1,bm9wZQ== " + VECTOR["signature"]
    assert signing.verify(**received)


def test_verify_rejects_missing_headers():
    with pytest.raises(signing.InvalidSignature):
        signing.verify(secret=VECTOR["secret"], headers={}, body=b"{}")
