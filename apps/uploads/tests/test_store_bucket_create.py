"""`manage.py store_bucket_create` (README "Running in production"): makes the bucket on the real (moto)
store, changes nothing the second time, and fails with a clear message when the store is down."""
import socket
import uuid
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings


def _run() -> str:
    out = StringIO()
    call_command("store_bucket_create", stdout=out)
    return out.getvalue()


def test_creates_the_bucket_once(s3):
    bucket = f"made-{uuid.uuid4().hex[:12]}"
    with override_settings(S3_BUCKET=bucket):
        assert _run() == f"Bucket '{bucket}' created.\n"
        s3.head_bucket(Bucket=bucket)
        assert _run() == f"Bucket '{bucket}' already exists.\n"


def test_store_down_is_a_clear_error(s3):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    with override_settings(S3_ENDPOINT_URL=closed, S3_PUBLIC_URL=closed), pytest.raises(CommandError) as error:
        _run()
    assert f"The object store at {closed} cannot be reached" in str(error.value)
