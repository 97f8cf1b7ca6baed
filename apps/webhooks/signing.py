"""Standard Webhooks signing (https://www.standardwebhooks.com/, docs/decisions.md: Webhooks).

The signed content is `{webhook-id}.{webhook-timestamp}.{body}`; the key is the base64-decoded part of
the `whsec_…` secret after the prefix; the signature header is a space-separated list of `v1,<base64>`.
No Django imports: the docs' verification examples mirror `verify()` line for line.
"""
import base64
import hashlib
import hmac
import json
import time

SECRET_PREFIX = "whsec_"
USER_AGENT = "Thingyard-Webhooks/1"
DEFAULT_TOLERANCE_SECONDS = 5 * 60  # the Standard Webhooks reference libraries' replay window


class InvalidSignature(Exception):
    """The headers or the signature do not match the body (or the timestamp is outside the window)."""


def secret_key(secret: str) -> bytes:
    """The raw HMAC key of a `whsec_…` secret."""
    if secret.startswith(SECRET_PREFIX):
        secret = secret[len(SECRET_PREFIX):]
    return base64.b64decode(secret)


def body_bytes(payload: dict) -> bytes:
    """The request body: compact JSON with sorted keys, so every attempt sends the same bytes."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


def sign(*, secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` header value: `v1,<base64 HMAC-SHA256>`."""
    content = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(*, secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """Every header of one delivery attempt."""
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret=secret, message_id=message_id, timestamp=timestamp, body=body),
    }


def verify(
    *, secret: str, headers: dict, body: bytes, tolerance: int = DEFAULT_TOLERANCE_SECONDS, now: float | None = None
) -> dict:
    """Check a received webhook; returns the decoded JSON body or raises InvalidSignature."""
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        message_id = lowered["webhook-id"]
        timestamp = int(lowered["webhook-timestamp"])
        signatures = lowered["webhook-signature"]
    except (KeyError, ValueError):
        raise InvalidSignature("Missing or malformed webhook headers.") from None
    now = time.time() if now is None else now
    # A captured request replayed later fails here, even with its valid signature.
    if abs(now - timestamp) > tolerance:
        raise InvalidSignature("The timestamp is outside the tolerance window.")
    expected = sign(secret=secret, message_id=message_id, timestamp=timestamp, body=body).split(",", 1)[1]
    for candidate in signatures.split(" "):
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return json.loads(body)
    raise InvalidSignature("No matching signature.")
