"""The object store (S3-compatible: AWS S3, MinIO, moto). The only module that talks to it.

Everything else passes keys. Browser-facing addresses (the POST form's `action`, presigned downloads)
use S3_PUBLIC_URL when the service reaches the store at another address than browsers do.
"""

import base64
import hashlib
import hmac
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from urllib.parse import quote

import boto3
from boto3.exceptions import S3UploadFailedError
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as StoreConnectionError
from celery._state import get_current_task
from django.conf import settings

from apps.core.domain.exceptions import ServiceUnavailable
from apps.core.storage.presign import (  # noqa: F401 (the store's addresses, used through this module too)
    PRESIGN_WINDOW_SECONDS,
    content_disposition,
    presigned_get_url,
    public_endpoint,
    sigv4_signing_key,
)
from apps.core.storage.presign import store_endpoint as _endpoint

DOWNLOAD_URL_SECONDS = 300
# Transient store failures (network, throttling, 5xx): callers (tasks) retry these with backoff.
TRANSIENT_ERRORS = (StoreConnectionError, HTTPClientError)
_NOT_FOUND_CODES = {"404", "NoSuchKey", "NotFound"}


# docs/reliability.md, docs/security.md (issue 14, finding 5): inside a web request a store call waits a
# few seconds at most and is tried once, so a hung store answers 503 long before gunicorn's 30 s worker
# timeout (boto3's 30 s read timeout × 3 attempts stalled every worker). Celery tasks keep the patient
# settings; their own retry policy (apps.core.broker.enqueue.retry_policy) backs off between attempts.
REQUEST_CONNECT_TIMEOUT_SECONDS = 2
REQUEST_READ_TIMEOUT_SECONDS = 4
TASK_CONNECT_TIMEOUT_SECONDS = 5
TASK_READ_TIMEOUT_SECONDS = 30
TASK_MAX_ATTEMPTS = 4  # the first try and 3 retries, as before
STORE_RETRY_AFTER_SECONDS = 30


class StoreError(ServiceUnavailable):
    """The store failed in a way worth retrying later: a task retries it with backoff; in a request it is
    a 503 with Retry-After and this message (apps.core.pipeline.handlers), never a 500 or a hang."""

    error_type = "STORE_UNAVAILABLE"
    default_message = "The file store cannot be reached; try again shortly."

    def __init__(self, detail: str = ""):
        super().__init__(retry_after=STORE_RETRY_AFTER_SECONDS)
        self.detail = detail

    def __str__(self) -> str:
        return self.detail or self.message


@dataclass(frozen=True)
class ObjectInfo:
    size: int
    content_type: str
    etag: str


# --- Clients ---------------------------------------------------------------------------------------


def _in_worker_task() -> bool:
    """True inside a Celery worker's task (not an eager one, which runs inside the request)."""
    task = get_current_task()
    return task is not None and not getattr(task.request, "is_eager", False)


@lru_cache(maxsize=16)
def _client_for(endpoint, region, access_key, secret_key, patient: bool = False):
    if patient:
        timeouts = {"connect_timeout": TASK_CONNECT_TIMEOUT_SECONDS, "read_timeout": TASK_READ_TIMEOUT_SECONDS}
        attempts = TASK_MAX_ATTEMPTS
    else:
        timeouts = {"connect_timeout": REQUEST_CONNECT_TIMEOUT_SECONDS, "read_timeout": REQUEST_READ_TIMEOUT_SECONDS}
        attempts = 1
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name=region,
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        config=Config(
            signature_version="s3v4",
            s3={"addressing_style": "path"},
            retries={"total_max_attempts": attempts, "mode": "standard"},
            **timeouts,
        ),
    )


def client(*, public: bool = False):
    """A boto3 S3 client; `public=True` signs URLs for the browser-facing address (the host is signed).
    Short timeouts and one attempt in a request; a Celery worker's tasks get patient ones."""
    endpoint = public_endpoint() if public else _endpoint()
    return _client_for(endpoint, settings.S3_REGION, settings.S3_ACCESS_KEY_ID, settings.S3_SECRET_ACCESS_KEY,
                       _in_worker_task())


def _call(fn, **kwargs):
    try:
        return fn(Bucket=settings.S3_BUCKET, **kwargs)
    except TRANSIENT_ERRORS as exc:
        raise StoreError(str(exc)) from exc
    except ClientError as exc:
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        if status >= 500 or exc.response.get("Error", {}).get("Code") in {"SlowDown", "RequestTimeout"}:
            raise StoreError(str(exc)) from exc
        raise


# --- Objects ---------------------------------------------------------------------------------------


def head(key: str) -> ObjectInfo | None:
    """Size and type of the object at `key`, or None when it is not there (yet)."""
    try:
        response = _call(client().head_object, Key=key)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _NOT_FOUND_CODES:
            return None
        raise
    return ObjectInfo(
        size=int(response["ContentLength"]),
        content_type=response.get("ContentType", ""),
        etag=response.get("ETag", "").strip('"'),
    )


class ObjectChanged(Exception):
    """The object is no longer the one that was checked (its ETag changed)."""


def copy(source: str, destination: str, *, if_match: str) -> None:
    """Server-side copy of `source` to `destination`, only if `source` still has the ETag `if_match`
    (the object that was checked); ObjectChanged otherwise, or when `source` is gone."""
    try:
        _call(
            client().copy_object,
            Key=destination,
            CopySource={"Bucket": settings.S3_BUCKET, "Key": source},
            CopySourceIfMatch=f'"{if_match}"',
            MetadataDirective="COPY",
        )
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        if code in {"PreconditionFailed", *_NOT_FOUND_CODES} or status in (404, 412):
            raise ObjectChanged(source) from exc
        raise


def delete(key: str) -> None:
    """Remove the object; a missing one is fine (S3 DELETE is idempotent)."""
    if key:
        _call(client().delete_object, Key=key)


def put(key: str, data: bytes, *, content_type: str = "application/octet-stream") -> None:
    _call(client().put_object, Key=key, Body=data, ContentType=content_type)


def put_file(key: str, fileobj, *, content_type: str = "application/octet-stream") -> None:
    """Stream a (large) file object to the store in parts."""
    try:
        client().upload_fileobj(fileobj, settings.S3_BUCKET, key, ExtraArgs={"ContentType": content_type})
    except TRANSIENT_ERRORS as exc:
        raise StoreError(str(exc)) from exc


def upload_file(key: str, fileobj, content_type: str = "application/octet-stream", *,
                max_concurrency: int | None = None) -> None:
    """Stream a file on disk to the store; parts are read from the file lazily (bounded memory).

    put_file's upload_fileobj buffers each part in memory (up to ten 8 MB parts at once); from a path,
    s3transfer reads them as it sends (processing: +27 MB instead of +112 MB for a 140 MB upload).
    `max_concurrency` bounds the parts in flight (s3transfer's default is 10, each holding a part:
    2 costs +6 MB for a 140 MB file instead of +28 MB; bench/stlmemory.py).
    """
    name = getattr(fileobj, "name", None)
    if not (isinstance(name, str) and os.path.isfile(name)):
        put_file(key, fileobj, content_type=content_type)
        return
    try:
        config = TransferConfig(max_concurrency=max_concurrency) if max_concurrency else None
        client().upload_file(name, settings.S3_BUCKET, key, ExtraArgs={"ContentType": content_type},
                             Config=config)
    except (*TRANSIENT_ERRORS, S3UploadFailedError) as exc:
        # upload_file wraps every ClientError (5xx, throttling) in S3UploadFailedError.
        raise StoreError(str(exc)) from exc


def get_bytes(key: str) -> bytes:
    return _call(client().get_object, Key=key)["Body"].read()


def read_head(key: str, size: int) -> bytes:
    """The object's first `size` bytes (one ranged GET; fewer when the object is shorter)."""
    return _call(client().get_object, Key=key, Range=f"bytes=0-{size - 1}")["Body"].read()


def open_stream(key: str):
    """The object's body as a readable stream (botocore StreamingBody); close it when done."""
    return _call(client().get_object, Key=key)["Body"]


def download_to_tempfile(key: str, *, suffix: str = ""):
    """The object copied to a named temporary file (deleted on close), positioned at 0."""
    body = open_stream(key)
    tmp = tempfile.NamedTemporaryFile(suffix=suffix)
    try:
        shutil.copyfileobj(body, tmp, length=1024 * 1024)
    except TRANSIENT_ERRORS as exc:
        tmp.close()
        raise StoreError(str(exc)) from exc
    finally:
        body.close()
    tmp.flush()
    tmp.seek(0)
    return tmp


def download_url(key: str, *, filename: str | None = None, expires_in: int = DOWNLOAD_URL_SECONDS) -> str:
    """A short-lived signed GET URL for a browser; `filename` makes it save under that name."""
    params = {"Bucket": settings.S3_BUCKET, "Key": key}
    if filename:
        params["ResponseContentDisposition"] = content_disposition(filename)
    return client(public=True).generate_presigned_url("get_object", Params=params, ExpiresIn=expires_in)


def public_url(key: str) -> str:
    """The unsigned URL of an object (for objects stored public-read)."""
    return f"{public_endpoint()}/{settings.S3_BUCKET}/{quote(key, safe='/')}"


def bucket_url() -> str:
    """The POST form's `action`: path-style bucket URL (works with AWS S3, MinIO and moto alike)."""
    return f"{public_endpoint()}/{settings.S3_BUCKET}"


class BucketMissing(Exception):
    """The store answers but has no bucket S3_BUCKET (`python manage.py store_bucket_create` makes it)."""


def bucket_check() -> None:
    """The store answers and the bucket exists (readiness, config/health.py); StoreError when the store
    cannot be reached, BucketMissing when it has no such bucket. One short try, as in a request."""
    try:
        _call(client().head_bucket)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _NOT_FOUND_CODES | {"NoSuchBucket"}:
            raise BucketMissing(settings.S3_BUCKET) from exc
        raise


def bucket_create() -> bool:
    """Create the bucket S3_BUCKET unless it exists; True when it was created now. Operators run it once
    per installation (`python manage.py store_bucket_create`); running it again changes nothing."""
    try:
        bucket_check()
        return False
    except BucketMissing:
        pass
    options = {}
    if settings.S3_REGION and settings.S3_REGION != "us-east-1":  # AWS: us-east-1 takes no constraint
        options["CreateBucketConfiguration"] = {"LocationConstraint": settings.S3_REGION}
    try:
        _call(client().create_bucket, **options)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in {"BucketAlreadyOwnedByYou", "BucketAlreadyExists"}:
            raise
        return False
    return True


# --- Browser POST form (spec §2 Upload descriptor, docs/decisions.md Uploads) --------------------------


def _iso_z(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def sign_v2(policy_b64: str, secret: str) -> str:
    """S3 signature version 2 of a POST policy: base64(HMAC-SHA1(secret, policy))."""
    return _b64(hmac.new(secret.encode(), policy_b64.encode(), hashlib.sha1).digest())


def sign_v4(policy_b64: str, secret: str, *, date: str, region: str) -> str:
    """SigV4 of a POST policy: hex HMAC-SHA256 with the derived signing key of `date` (YYYYMMDD)."""
    return hmac.new(sigv4_signing_key(secret, date, region), policy_b64.encode(), hashlib.sha256).hexdigest()


def post_form(
    *,
    key: str,
    content_type: str,
    redirect: str,
    expires_at: datetime,
    acl: str = "private",
    content_disposition: str = "",
    max_bytes: int | None = None,
    now: datetime | None = None,
) -> dict:
    """{action, fields}: a signed browser POST form for exactly one object key.

    Field order is part of the contract (docs/decisions.md: Uploads): clients replay `fields` in order and
    put the file last. The policy pins every field, so none can be changed by the client.
    """
    now = now or datetime.now(UTC)
    max_bytes = max_bytes or settings.UPLOAD_MAX_BYTES
    bucket = settings.S3_BUCKET
    access_key = settings.S3_ACCESS_KEY_ID
    secret = settings.S3_SECRET_ACCESS_KEY
    v4 = settings.S3_SIGNATURE_MODE.lower() == "v4"

    conditions: list = [
        {"bucket": bucket},
        {"key": key},
        {"acl": acl},
        {"success_action_redirect": redirect},
        ["content-length-range", 1, max_bytes],
        {"Content-Type": content_type},
        {"Content-Disposition": content_disposition},
    ]
    amz: dict[str, str] = {}
    if v4:
        day = now.strftime("%Y%m%d")
        amz = {
            "x-amz-algorithm": "AWS4-HMAC-SHA256",
            "x-amz-credential": f"{access_key}/{day}/{settings.S3_REGION}/s3/aws4_request",
            "x-amz-date": now.strftime("%Y%m%dT%H%M%SZ"),
        }
        conditions += [{name: value} for name, value in amz.items()]
    policy = {"expiration": _iso_z(expires_at), "conditions": conditions}
    policy_b64 = _b64(json.dumps(policy, separators=(",", ":")).encode())

    if v4:
        signature = sign_v4(policy_b64, secret, date=now.strftime("%Y%m%d"), region=settings.S3_REGION)
        fields = {
            **amz,
            "bucket": bucket,
            "key": key,
            "acl": acl,
            "success_action_redirect": redirect,
            "policy": policy_b64,
            "x-amz-signature": signature,
        }
    else:
        fields = {
            "AWSAccessKeyId": access_key,
            "bucket": bucket,
            "key": key,
            "acl": acl,
            "success_action_redirect": redirect,
            "policy": policy_b64,
            "signature": sign_v2(policy_b64, secret),
        }
    fields["Content-Type"] = content_type
    fields["Content-Disposition"] = content_disposition
    return {"action": bucket_url(), "fields": fields}


def post_form_verify(fields, *, size: int, now: datetime | None = None) -> dict | None:
    """The policy of a form `post_form` signed, when `fields` (as posted) carry our signature of it, it
    has not expired, and every field and the file's `size` meet its conditions, as the store checks
    them; None otherwise. (The upload relay of the `thingiverse` wire stores the bytes itself.)"""
    policy_b64 = fields.get("policy") or ""
    secret = settings.S3_SECRET_ACCESS_KEY
    if "x-amz-signature" in fields:
        date = (fields.get("x-amz-date") or "")[:8]
        expected, given = sign_v4(policy_b64, secret, date=date, region=settings.S3_REGION), fields["x-amz-signature"]
    else:
        expected, given = sign_v2(policy_b64, secret), fields.get("signature") or ""
    if not policy_b64 or not hmac.compare_digest(expected.encode(), given.encode()):
        return None
    try:
        policy = json.loads(base64.b64decode(policy_b64, validate=True))
        expires = datetime.strptime(policy["expiration"], "%Y-%m-%dT%H:%M:%S.000Z").replace(tzinfo=UTC)
        conditions = list(policy["conditions"])
    except (ValueError, KeyError, TypeError):
        return None
    if expires <= (now or datetime.now(UTC)):
        return None
    for condition in conditions:
        if isinstance(condition, dict):
            if any(fields.get(name) != value for name, value in condition.items()):
                return None
        elif condition[0] == "content-length-range" and not condition[1] <= size <= condition[2]:
            return None
    return policy

