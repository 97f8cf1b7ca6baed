"""docs/decisions.md: Wire versions, uploads. Under `thingiverse` the descriptor's `action` is the relay on
the service's own origin, whose answer to the object-store POST is 200 (the client then POSTs the
finalize URL itself); under `spec` it is the store, answering 303 to `success_action_redirect`."""
import pytest

from apps.things.tests.factories import ThingFactory
from apps.uploads.tests.file_factories import exists
from apps.uploads.tests.upload_helpers import store_post

pytestmark = pytest.mark.django_db
LIVE = {"HTTP_THINGYARD_VERSION": "thingiverse"}
STL = b"solid relay\nendsolid relay\n"


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user, is_published=False, published_at=None)


def _relay_post(anon_client, descriptor, *, data=STL, **overrides):
    path = "/" + descriptor["action"].split("://", 1)[1].split("/", 1)[1]
    fields = {**descriptor["fields"], **overrides}
    from django.core.files.uploadedfile import SimpleUploadedFile

    return anon_client.post(path, {**fields, "file": SimpleUploadedFile("part.stl", data, "model/stl")})


def test_thingiverse_uploads_go_through_the_relay_which_answers_200(api, anon_client, s3, thing):
    descriptor = api.post(f"/things/{thing.pk}/files", {"filename": "part.stl"}, format="json", **LIVE).json()
    assert descriptor["action"].endswith("/store") and "/uploads/" in descriptor["action"]
    response = _relay_post(anon_client, descriptor)
    assert response.status_code == 200 and response.content == b""
    assert exists(s3, descriptor["fields"]["key"])
    finalize = descriptor["fields"]["success_action_redirect"]
    finalized = api.post("/" + finalize.split("://", 1)[1].split("/", 1)[1], **LIVE)
    assert finalized.status_code == 200, finalized.content
    assert finalized.json()["name"] == "part.stl" and finalized["Thingyard-Version"] == "thingiverse"


def test_spec_uploads_still_post_to_the_store_which_answers_303(api, s3, thing):
    descriptor = api.post(f"/things/{thing.pk}/files", {"filename": "part.stl"}, format="json").json()
    assert "/uploads/" not in descriptor["action"]
    response = store_post(descriptor, STL, filename="part.stl")
    assert response.status_code == 303
    assert response.headers["Location"].startswith(descriptor["fields"]["success_action_redirect"])


@pytest.mark.parametrize("tamper", [
    {"key": "uploads/elsewhere/part.stl"},
    {"Content-Type": "text/html"},
    {"signature": "AAAA"},
    {"policy": "e30="},
])
def test_the_relay_refuses_a_form_that_is_not_the_signed_one(api, anon_client, s3, thing, tamper):
    descriptor = api.post(f"/things/{thing.pk}/files", {"filename": "part.stl"}, format="json", **LIVE).json()
    response = _relay_post(anon_client, descriptor, **tamper)
    assert response.status_code == 403 and response.json()["type"] == "FORBIDDEN"
    assert not exists(s3, descriptor["fields"]["key"])


def test_the_relay_refuses_a_form_without_a_file_and_a_get(api, anon_client, s3, thing):
    descriptor = api.post(f"/things/{thing.pk}/files", {"filename": "part.stl"}, format="json", **LIVE).json()
    path = "/" + descriptor["action"].split("://", 1)[1].split("/", 1)[1]
    assert anon_client.post(path, descriptor["fields"]).status_code == 400
    assert anon_client.get(path).status_code == 405
