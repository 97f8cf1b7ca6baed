"""Posting a copy exactly as a third-party client does (spec §4.2 POST /things/{id}/copies, §4.10): the
API through its test client with a token, the object store (moto's real S3 server) over real HTTP."""
from urllib.parse import urlsplit

import pytest
import requests

from apps.activity.models import Event
from apps.makes.models import Make
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.tests.upload_helpers import png_bytes, store_post

pytestmark = pytest.mark.django_db


def _upload(api, start_path: str, filename: str, data: bytes, captured) -> dict:
    started = api.post(start_path, {"filename": filename}, format="json")
    assert started.status_code == 200, started.content
    descriptor = started.json()
    stored = store_post(descriptor, data, filename=filename, content_type="image/png")
    assert stored.status_code == 303, stored.text
    # Step 5: the redirect's path, POSTed with the token and an empty body; processing runs on commit.
    with captured(execute=True):
        finalized = api.post(urlsplit(stored.headers["Location"]).path, data="", content_type="application/json")
    assert finalized.status_code == 200, finalized.content
    return finalized.json()


def test_a_client_posts_a_copy_with_its_photo_then_adds_another(
    api, user, other_user, s3, django_capture_on_commit_callbacks
):
    thing = ThingFactory(creator=other_user)
    summary = _upload(
        api, f"/things/{thing.pk}/copies", "my print.png", png_bytes(size=(640, 480)),
        django_capture_on_commit_callbacks,
    )
    make = Make.objects.get()
    assert (make.thing_id, make.creator_id) == (thing.pk, user.pk)
    assert summary["url"] == f"http://testserver/copies/{make.pk}/images/{summary['id']}"
    assert Thing.objects.get(pk=thing.pk).make_count == 1
    assert Event.objects.filter(kind="make", recipient=other_user).count() == 1

    # The summary's URL answers the processed image: sizes rendered like a Thing's, fetchable.
    image = api.get(urlsplit(summary["url"]).path).json()
    assert (image["id"], image["name"], image["status"]) == (summary["id"], "my print.png", "live")
    assert {(s["type"], s["size"]) for s in image["sizes"]} >= {
        (t, s) for t in ("thumb", "display") for s in ("large", "medium", "small")
    }
    for size in image["sizes"]:
        assert requests.get(size["url"], timeout=10).status_code == 200

    copy = api.get(f"/copies/{make.pk}/").json()
    assert requests.get(copy["thumbnail"], timeout=10).status_code == 200
    # The live copy's `name` (its Thing's) and `preview_image` (a larger size of the same photo).
    live = api.get(f"/copies/{make.pk}/", HTTP_THINGYARD_VERSION="thingiverse").json()
    assert live["name"] == thing.name and "name" not in copy and "preview_image" not in copy
    assert live["preview_image"] != live["thumbnail"] == copy["thumbnail"]
    assert requests.get(live["preview_image"], timeout=10).status_code == 200
    api.patch(f"/copies/{make.pk}/", {"description": "PETG, 0.2 mm, no supports."}, format="json")

    second = _upload(
        api, f"/copies/{make.pk}/images", "detail.png", png_bytes(size=(320, 240), color=(0, 90, 200)),
        django_capture_on_commit_callbacks,
    )
    listed = api.get(f"/things/{thing.pk}/copies").json()
    assert [c["id"] for c in listed] == [make.pk]
    assert listed[0]["description"] == "PETG, 0.2 mm, no supports."
    assert [i["id"] for i in listed[0]["images"]] == [summary["id"], second["id"]]
    assert Make.objects.count() == 1 and Thing.objects.get(pk=thing.pk).make_count == 1
