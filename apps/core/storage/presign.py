"""Signed GET URLs of stored objects, computed locally (an HMAC, no round trip), and where browsers reach
the store.

boto3 spends about 200 µs on one presigned URL (its request model and event hooks), so a page of 100
Things with images, or of 30 images with their sizes, spent tens of ms signing. This is the same SigV4
query signature, computed directly (checked against boto3 in apps/uploads/tests/test_store_presign.py).

The signing time is floored to a window and the expiry stretched by it, so a URL is the same within the
window (a body that shows it is the same bytes from one second to the next, and browsers can cache the
picture) and is always valid for at least `expires` seconds. Every stored object a body or page shows
is signed here: Things' files and images, copies' and groups' images, avatars, covers and apps' logos
(docs/decisions.md: "Every stored picture is signed by one signer").
"""

import hashlib
import hmac
from datetime import UTC, datetime
from functools import lru_cache
from urllib.parse import quote, urlsplit

from django.conf import settings

PRESIGN_WINDOW_SECONDS = 900
# Signed store URLs live this long (at least): long enough to render a page and start a download, short
# enough that a leaked URL of a draft's file soon stops working.
SIGNED_URL_SECONDS = 3600


def store_endpoint() -> str | None:
    """Where the service reaches the store; None for AWS's own endpoint."""
    # local.py sets only AWS_S3_ENDPOINT_URL (moto on :9000) when S3_ENDPOINT_URL is empty.
    return settings.S3_ENDPOINT_URL or getattr(settings, "AWS_S3_ENDPOINT_URL", None) or None


def public_endpoint() -> str:
    """Where browsers reach the store (no trailing slash): S3_PUBLIC_URL when the service reaches it at
    another address than browsers do (docker-compose: `minio:9000` inside, the host's port outside)."""
    endpoint = settings.S3_PUBLIC_URL or store_endpoint() or f"https://s3.{settings.S3_REGION}.amazonaws.com"
    return endpoint.rstrip("/")


def content_disposition(filename: str) -> str:
    """`attachment` with an ASCII fallback name and the RFC 5987 UTF-8 name."""
    ascii_name = filename.encode("ascii", "ignore").decode().replace('"', "").replace("\\", "") or "download"
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename, safe='')}"


@lru_cache(maxsize=8)
def sigv4_signing_key(secret: str, day: str, region: str) -> bytes:
    """SigV4's derived S3 signing key of `day` (YYYYMMDD): signs GET URLs here and POST policies
    (apps.uploads.store.sign_v4)."""

    def mac(key: bytes, msg: str) -> bytes:
        return hmac.new(key, msg.encode(), hashlib.sha256).digest()

    return mac(mac(mac(mac(("AWS4" + secret).encode(), day), region), "s3"), "aws4_request")


def _sigv4_quote(value: str) -> str:
    return quote(value, safe="-_.~")


def presigned_get_url(
    key: str, *, filename: str | None = None, expires: int = SIGNED_URL_SECONDS, signed_at: datetime | None = None
) -> str:
    """A signed GET URL of `key` for browsers, valid for at least `expires` seconds; `filename` makes
    it download under that name. `signed_at` pins the signing time (tests); else now, floored."""
    if signed_at is None:
        epoch = int(datetime.now(UTC).timestamp())
        signed_at = datetime.fromtimestamp(epoch - epoch % PRESIGN_WINDOW_SECONDS, UTC)
        expires += PRESIGN_WINDOW_SECONDS
    endpoint = urlsplit(public_endpoint())
    scheme, host = endpoint.scheme, endpoint.netloc
    if (scheme, endpoint.port) in {("http", 80), ("https", 443)}:
        host = endpoint.hostname or host
    path = f"{endpoint.path.rstrip('/')}/{settings.S3_BUCKET}/{quote(key, safe='/~')}"
    day = signed_at.strftime("%Y%m%d")
    scope = f"{day}/{settings.S3_REGION}/s3/aws4_request"
    params = {
        "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
        "X-Amz-Credential": f"{settings.S3_ACCESS_KEY_ID}/{scope}",
        "X-Amz-Date": signed_at.strftime("%Y%m%dT%H%M%SZ"),
        "X-Amz-Expires": str(expires),
        "X-Amz-SignedHeaders": "host",
    }
    if filename:
        params["response-content-disposition"] = content_disposition(filename)
    query = "&".join(f"{_sigv4_quote(k)}={_sigv4_quote(v)}" for k, v in sorted(params.items()))
    canonical = "\n".join(["GET", path, query, f"host:{host}\n", "host", "UNSIGNED-PAYLOAD"])
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", params["X-Amz-Date"], scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    signing_key = sigv4_signing_key(settings.S3_SECRET_ACCESS_KEY, day, settings.S3_REGION)
    signature = hmac.new(signing_key, to_sign.encode(), hashlib.sha256).hexdigest()
    return f"{scheme}://{endpoint.netloc}{path}?{query}&X-Amz-Signature={signature}"
