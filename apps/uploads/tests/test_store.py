"""apps.uploads.store against the real (moto) S3 server: the signed POST form and object calls."""

import base64
import hashlib
import hmac
import io
import json
from datetime import UTC, datetime, timedelta

import requests
from botocore.auth import HmacV1PostAuth, S3SigV4PostAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from apps.uploads import store

V2_ORDER = [
    "AWSAccessKeyId",
    "bucket",
    "key",
    "acl",
    "success_action_redirect",
    "policy",
    "signature",
    "Content-Type",
    "Content-Disposition",
]
KEY = "uploads/1/abc/part.stl"
REDIRECT = "http://testserver/files/7/finalize"


def form(**kw):
    now = kw.pop("now", datetime.now(UTC))
    return store.post_form(
        key=KEY,
        content_type="model/stl",
        redirect=REDIRECT,
        expires_at=now + timedelta(hours=1),
        now=now,
        **kw,
    )


def policy_of(fields) -> dict:
    return json.loads(base64.b64decode(fields["policy"]))


def test_the_v2_form_has_the_fields_in_the_contract_order(s3, settings):
    descriptor = form()
    assert list(descriptor) == ["action", "fields"]
    assert list(descriptor["fields"]) == V2_ORDER
    assert all(isinstance(value, str) for value in descriptor["fields"].values())
    assert descriptor["action"] == f"{settings.S3_ENDPOINT_URL}/{settings.S3_BUCKET}"
    fields = descriptor["fields"]
    assert fields["AWSAccessKeyId"] == settings.S3_ACCESS_KEY_ID
    assert (fields["bucket"], fields["key"], fields["acl"]) == (settings.S3_BUCKET, KEY, "private")
    assert fields["success_action_redirect"] == REDIRECT
    assert fields["Content-Type"] == "model/stl"
    assert fields["Content-Disposition"] == ""


def test_the_policy_pins_every_field_and_expires_in_an_hour(s3, settings):
    now = datetime.now(UTC).replace(microsecond=0)
    policy = policy_of(form(now=now)["fields"])
    expiration = datetime.strptime(policy["expiration"], "%Y-%m-%dT%H:%M:%S.000Z").replace(tzinfo=UTC)
    assert expiration - now == timedelta(hours=1)
    assert policy["conditions"] == [
        {"bucket": settings.S3_BUCKET},
        {"key": KEY},
        {"acl": "private"},
        {"success_action_redirect": REDIRECT},
        ["content-length-range", 1, 262144000],
        {"Content-Type": "model/stl"},
        {"Content-Disposition": ""},
    ]


def test_the_v2_signature_is_hmac_sha1_of_the_policy(s3, settings):
    fields = form()["fields"]
    expected = base64.b64encode(
        hmac.new(settings.S3_SECRET_ACCESS_KEY.encode(), fields["policy"].encode(), hashlib.sha1).digest()
    ).decode()
    assert fields["signature"] == expected
    # botocore's own S3 POST signer (signature version 2) agrees.
    signer = HmacV1PostAuth(Credentials(settings.S3_ACCESS_KEY_ID, settings.S3_SECRET_ACCESS_KEY))
    assert fields["signature"] == signer.sign_string(fields["policy"])


def test_the_v4_mode_sends_x_amz_fields_signed_as_botocore_signs_them(s3, settings):
    settings.S3_SIGNATURE_MODE = "v4"
    now = datetime(2026, 11, 20, 12, 0, 0, tzinfo=UTC)
    fields = form(now=now)["fields"]
    assert list(fields) == [
        "x-amz-algorithm",
        "x-amz-credential",
        "x-amz-date",
        "bucket",
        "key",
        "acl",
        "success_action_redirect",
        "policy",
        "x-amz-signature",
        "Content-Type",
        "Content-Disposition",
    ]
    assert fields["x-amz-algorithm"] == "AWS4-HMAC-SHA256"
    assert (
        fields["x-amz-credential"]
        == f"{settings.S3_ACCESS_KEY_ID}/20261120/{settings.S3_REGION}/s3/aws4_request"
    )
    assert fields["x-amz-date"] == "20261120T120000Z"
    conditions = policy_of(fields)["conditions"]
    for name in ("x-amz-algorithm", "x-amz-credential", "x-amz-date"):
        assert {name: fields[name]} in conditions
    assert ["content-length-range", 1, 262144000] in conditions

    signer = S3SigV4PostAuth(
        Credentials(settings.S3_ACCESS_KEY_ID, settings.S3_SECRET_ACCESS_KEY), "s3", settings.S3_REGION
    )
    request = AWSRequest(method="POST", url="http://example")
    request.context["timestamp"] = fields["x-amz-date"]
    assert fields["x-amz-signature"] == signer.signature(fields["policy"], request)


def test_the_public_url_setting_moves_the_action_and_download_links(s3, settings):
    settings.S3_PUBLIC_URL = "https://files.example.test/"
    assert form()["action"] == f"https://files.example.test/{settings.S3_BUCKET}"
    assert store.download_url("a/b c.stl").startswith(
        f"https://files.example.test/{settings.S3_BUCKET}/a/b%20c.stl?"
    )
    assert store.public_url("a/b c.stl") == f"https://files.example.test/{settings.S3_BUCKET}/a/b%20c.stl"


def test_head_answers_none_for_a_missing_object_and_the_size_of_a_present_one(s3):
    assert store.head("uploads/test/missing.bin") is None
    store.put("uploads/test/present.bin", b"12345", content_type="text/plain")
    info = store.head("uploads/test/present.bin")
    assert info is not None
    assert (info.size, info.content_type) == (5, "text/plain")
    assert info.etag == hashlib.md5(b"12345").hexdigest()


def test_delete_removes_the_object_and_ignores_a_missing_one(s3):
    store.put("uploads/test/gone.bin", b"x")
    store.delete("uploads/test/gone.bin")
    assert store.head("uploads/test/gone.bin") is None
    store.delete("uploads/test/gone.bin")


def test_objects_come_back_as_bytes_streams_and_temp_files(s3):
    data = bytes(range(256)) * 1000
    store.put_file("uploads/test/big.bin", io.BytesIO(data))
    assert store.get_bytes("uploads/test/big.bin") == data
    body = store.open_stream("uploads/test/big.bin")
    assert body.read() == data
    body.close()
    with store.download_to_tempfile("uploads/test/big.bin", suffix=".bin") as tmp:
        assert tmp.name.endswith(".bin")
        assert tmp.read() == data


def test_a_download_url_serves_the_bytes_under_the_files_name(s3):
    store.put("uploads/test/dl.stl", b"solid x\nendsolid x\n")
    response = requests.get(
        store.download_url("uploads/test/dl.stl", filename="Bracket v2 (ü).stl"), timeout=10
    )
    assert response.status_code == 200
    assert response.content == b"solid x\nendsolid x\n"
    assert response.headers["Content-Disposition"] == (
        "attachment; filename=\"Bracket v2 ().stl\"; filename*=UTF-8''Bracket%20v2%20%28%C3%BC%29.stl"
    )


def test_a_download_url_expires(s3):
    url = store.download_url("uploads/test/dl.stl", expires_in=60)
    assert "X-Amz-Expires=60" in url
