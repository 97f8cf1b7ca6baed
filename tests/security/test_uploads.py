"""Upload policies (spec §4.10) cannot be reused for another object key or size.

The object store enforces a POST policy it can verify: the signature is an HMAC over the exact policy
with a secret only the service holds, and the policy pins every field. The service then checks, at
finalize, what really arrived (a store that ignored the policy cannot smuggle an object through).
"""
import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.test import override_settings

from apps.uploads.models import Upload
from apps.uploads.tests.file_factories import exists, put
from tests.support.api import token_client


def _start(client, thing, filename="part.stl"):
    response = client.post(f"/things/{thing.pk}/files", {"filename": filename}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _policy(descriptor) -> dict:
    return json.loads(base64.b64decode(descriptor["fields"]["policy"]))


def _conditions(policy) -> dict:
    pinned = {}
    for condition in policy["conditions"]:
        if isinstance(condition, dict):
            pinned.update(condition)
        else:
            pinned[condition[0]] = condition[1:]
    return pinned


def _v2_signature(policy_b64: str) -> str:
    mac = hmac.new(settings.S3_SECRET_ACCESS_KEY.encode(), policy_b64.encode(), hashlib.sha1)
    return base64.b64encode(mac.digest()).decode()


def test_the_policy_pins_the_exact_key_bucket_acl_redirect_and_type(world, a_via_x):
    descriptor = _start(a_via_x, world.thing)
    fields, pinned = descriptor["fields"], _conditions(_policy(descriptor))
    for name in ("bucket", "key", "acl", "success_action_redirect", "Content-Type", "Content-Disposition"):
        assert pinned[name] == fields[name], name  # exact values: no starts-with, no wildcard
    assert not any(isinstance(c, list) and c[0] == "starts-with" for c in _policy(descriptor)["conditions"])


def test_the_policy_bounds_the_size_and_expires_within_an_hour(world, a_via_x):
    before = datetime.now(UTC)
    policy = _policy(_start(a_via_x, world.thing))
    assert _conditions(policy)["content-length-range"] == [1, settings.UPLOAD_MAX_BYTES] == [1, 262144000]
    expires = datetime.fromisoformat(policy["expiration"].replace("Z", "+00:00"))
    assert before < expires <= before + timedelta(seconds=settings.UPLOAD_POLICY_SECONDS + 5)


def test_the_signature_covers_exactly_this_policy(world, a_via_x):
    descriptor = _start(a_via_x, world.thing)
    fields = descriptor["fields"]
    assert fields["signature"] == _v2_signature(fields["policy"])
    # The same policy for another key, or a larger size, is another policy: its signature differs, and
    # only the service (holding the secret) can make one.
    policy = _policy(descriptor)
    for change in ({"key": fields["key"] + "-other"}, {"content-length-range": [1, 10**12]}):
        forged = dict(policy, conditions=[
            ([c[0], *change[c[0]]] if isinstance(c, list) and c[0] in change
             else {k: change.get(k, v) for k, v in c.items()} if isinstance(c, dict) else c)
            for c in policy["conditions"]
        ])
        forged_b64 = base64.b64encode(json.dumps(forged, separators=(",", ":")).encode()).decode()
        assert forged_b64 != fields["policy"]
        assert _v2_signature(forged_b64) != fields["signature"]


@override_settings(S3_SIGNATURE_MODE="v4")
def test_the_sigv4_form_pins_the_key_and_size_too(world, a_via_x):
    descriptor = _start(a_via_x, world.thing)
    pinned = _conditions(_policy(descriptor))
    assert pinned["key"] == descriptor["fields"]["key"]
    assert pinned["content-length-range"] == [1, settings.UPLOAD_MAX_BYTES]
    assert pinned["x-amz-credential"] == descriptor["fields"]["x-amz-credential"]


def test_each_upload_gets_its_own_server_chosen_key(world, a_via_x, user_a):
    first = _start(a_via_x, world.thing, "../../uploads/1/victim/part.stl")
    second = _start(a_via_x, world.thing, "part.stl")
    keys = [first["fields"]["key"], second["fields"]["key"]]
    assert keys[0] != keys[1]
    assert all(key.startswith(f"uploads/{user_a.pk}/") for key in keys)
    assert ".." not in keys[0] and "victim" not in keys[0].rsplit("/", 1)[0]
    assert _conditions(_policy(first))["key"] != keys[1]  # one policy never covers another upload's key


@override_settings(UPLOAD_MAX_BYTES=16)
def test_finalize_refuses_an_object_larger_than_the_policy_allowed(
    world, a_via_x, s3, django_capture_on_commit_callbacks
):
    # As if the store had not enforced content-length-range: the service's own check still holds.
    descriptor = _start(a_via_x, world.thing)
    upload = Upload.objects.get(key=descriptor["fields"]["key"])
    put(s3, upload.key, b"x" * 17)
    with django_capture_on_commit_callbacks(execute=True):
        response = a_via_x.post(f"/files/{upload.pk}/finalize")
    assert response.status_code == 400
    assert response.json()["type"] == "UPLOAD_TOO_LARGE"
    assert not exists(s3, upload.key)
    upload.refresh_from_db()
    assert upload.status == Upload.Status.FAILED and upload.file_id is None


def test_finalize_refuses_an_empty_object(world, a_via_x, s3):
    descriptor = _start(a_via_x, world.thing)
    upload = Upload.objects.get(key=descriptor["fields"]["key"])
    put(s3, upload.key, b"")
    response = a_via_x.post(f"/files/{upload.pk}/finalize")
    assert response.status_code == 400
    assert response.json()["type"] == "UPLOAD_EMPTY"


def test_an_upload_id_cannot_be_finalized_by_someone_else(world, user_b, app_x, s3):
    put(s3, world.upload.key, b"solid x\nendsolid x\n")
    response = token_client(user_b, app_x).post(f"/files/{world.upload.pk}/finalize")
    assert response.status_code == 403
    world.upload.refresh_from_db()
    assert world.upload.status == Upload.Status.PENDING


def test_finalize_looks_only_at_its_own_key(world, a_via_x, s3):
    # Bytes placed under another key (say, another upload's) never finalize this upload.
    descriptor = _start(a_via_x, world.thing)
    upload = Upload.objects.get(key=descriptor["fields"]["key"])
    put(s3, upload.key + "-elsewhere", b"solid x\nendsolid x\n")
    response = a_via_x.post(f"/files/{upload.pk}/finalize")
    assert response.status_code == 400
    assert response.json()["type"] == "UPLOAD_MISSING"


@pytest.mark.parametrize("kind_path", ["/users/{username}/avatar-image", "/things/{thing_id}/files"])
def test_starting_an_upload_needs_the_target_s_owner(world, b_via_x, kind_path):
    response = b_via_x.post(kind_path.format(**world.path_values()), {"filename": "x.png"}, format="json")
    assert response.status_code in (403, 404)


# --- issue 14, finding 4: a finalized file cannot be swapped through its still-valid policy ------------

STL_CHECKED = b"solid checked\nendsolid checked\n"
STL_SWAPPED = b"solid swapped\nendsolid swapped\n"


def _post_form(descriptor, data: bytes) -> None:
    """POST the bytes with the descriptor's signed form, as a browser does (fields in order, file last)."""
    import requests

    parts: list[tuple] = [(name, (None, value)) for name, value in descriptor["fields"].items()]
    parts.append(("file", ("part.stl", data, descriptor["fields"]["Content-Type"])))
    response = requests.post(descriptor["action"], files=parts, allow_redirects=False, timeout=10)
    assert response.status_code in (200, 201, 204, 303), response.content[:300]


def test_re_posting_the_form_after_finalize_cannot_swap_the_file(
    world, a_via_x, s3, django_capture_on_commit_callbacks
):
    from apps.uploads import store
    from apps.uploads.models import ThingFile

    descriptor = _start(a_via_x, world.thing)
    policy_key = descriptor["fields"]["key"]
    upload = Upload.objects.get(key=policy_key)
    _post_form(descriptor, STL_CHECKED)
    with django_capture_on_commit_callbacks(execute=True):
        finalized = a_via_x.post(f"/files/{upload.pk}/finalize")
    assert finalized.status_code == 200, finalized.content
    file = ThingFile.objects.get(pk=finalized.json()["id"])
    assert file.key != policy_key and file.key.startswith("stored/")
    assert not exists(s3, policy_key)  # the policy's object is gone: only the frozen copy is served

    _post_form(descriptor, STL_SWAPPED)  # the policy is valid for the rest of its hour

    assert store.get_bytes(file.key) == STL_CHECKED
    again = a_via_x.post(f"/files/{upload.pk}/finalize")
    assert again.status_code == 200 and again.json() == finalized.json()
    file.refresh_from_db()
    assert store.get_bytes(file.key) == STL_CHECKED


def test_an_object_replaced_during_finalize_is_measured_as_it_was_frozen(world, a_via_x, s3, monkeypatch):
    from apps.uploads import store
    from apps.uploads.models import ThingFile

    descriptor = _start(a_via_x, world.thing)
    upload = Upload.objects.get(key=descriptor["fields"]["key"])
    put(s3, upload.key, STL_CHECKED)
    real_head = store.head
    swaps: list[str] = []

    def head_then_swap(key):
        info = real_head(key)
        if not swaps:  # the attacker wins the race once: the checked ETag no longer matches
            swaps.append(key)
            put(s3, key, STL_SWAPPED + b"x" * 40)
        return info

    monkeypatch.setattr(store, "head", head_then_swap)
    response = a_via_x.post(f"/files/{upload.pk}/finalize")
    assert response.status_code == 200, response.content
    file = ThingFile.objects.get(pk=response.json()["id"])
    frozen = store.get_bytes(file.key)
    assert file.size == len(frozen)  # what was measured is what is served
    assert frozen == STL_SWAPPED + b"x" * 40


def test_bytes_posted_after_finalize_are_swept_once_the_form_expires(world, a_via_x, s3):
    from django.utils import timezone

    from apps.uploads.flow.services import uploads_sweep_expired

    descriptor = _start(a_via_x, world.thing)
    upload = Upload.objects.get(key=descriptor["fields"]["key"])
    put(s3, upload.key, STL_CHECKED)
    assert a_via_x.post(f"/files/{upload.pk}/finalize").status_code == 200
    put(s3, descriptor["fields"]["key"], STL_SWAPPED)  # a stray re-post: nobody serves it
    upload.refresh_from_db()
    uploads_sweep_expired(now=upload.expires_at + timedelta(seconds=1))
    assert not exists(s3, descriptor["fields"]["key"])
    assert exists(s3, upload.key)  # the frozen copy stays
    assert timezone.now() < upload.expires_at
