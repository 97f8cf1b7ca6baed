"""The quick start's demo shows the product (issue 23): Things with photos and models, makes with photos,
a group with topics, collections, a remix; and "Allow" on the demo app lands on a page that uses the token."""
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from apps.demo.services import (
    DEMO_APP_CLIENT_ID,
    DEMO_APP_SECRET,
    DEMO_COLLECTIONS,
    DEMO_MAKE_PHOTOS,
    DEMO_MODELS,
    DEMO_THING_PHOTOS,
    demo_callback_url,
)

# One seeded database for the module's tests, on one xdist worker (conftest.py: demo_seeded).
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("demo-seed")]


@pytest.fixture
def seeded(demo_seeded, s3):
    """`seed_demo` has run twice (the second run idempotent: nothing twice) on this module's database."""


def test_things_have_processed_photos_and_models_and_one_page_is_model_first(seeded, client_for):
    from apps.things.models import Thing
    from apps.uploads.models import Image, ProcessingStatus, ThingFile

    photos = Image.objects.filter(name__in=[photo[1] for photo in DEMO_THING_PHOTOS])
    assert photos.count() == len(DEMO_THING_PHOTOS)
    assert all(p.status == ProcessingStatus.LIVE and len(p.sizes) >= 6 and p.width == 1200 for p in photos)
    models = ThingFile.objects.filter(name__in=[model[1] for model in DEMO_MODELS])
    assert models.count() == len(DEMO_MODELS) and all(m.status == ProcessingStatus.LIVE for m in models)
    # Each photographed Thing shows its photo first; the Calibration Cube only its model's render.
    demo = client_for(get_user_model().objects.get(username="demo"))
    arm = Thing.objects.get(name="Articulated Robot Arm")
    assert demo.get(f"/things/{arm.pk}/images").json()[0]["name"] == "robot-arm-assembled.png"
    cube = Thing.objects.get(name="Calibration Cube")
    page = Client().get(f"/thing:{cube.pk}").content.decode()
    assert 'data-kind="model"' in page and "vendor/three/three.module.min" in page


def test_every_make_has_a_processed_photo(seeded, client_for):
    from apps.makes.models import Make

    makes = Make.objects.all()
    assert makes.count() == len(DEMO_MAKE_PHOTOS)
    for make in makes:
        (image,) = make.images.all()
        assert image.status == "live" and image.sizes
    page = Client().get(f"/make:{makes[0].pk}").content.decode()
    assert makes[0].images.get().name in page


def test_a_group_with_members_things_and_topics_and_two_collections(seeded, client_for):
    from apps.groups.models import Group

    group = Group.objects.get(slug="workshop-organizers")
    assert group.memberships.count() == 3 and group.entries.count() == 3
    topics = {topic.name: topic for topic in group.topics.all()}
    assert len(topics) == 2 and topics["Welcome: what belongs here"].pinned
    assert topics["PETG or PLA for wall mounts?"].comment_count == 2
    page = Client().get("/browse/groups").content.decode()
    assert "Workshop Organizers" in page
    alice = client_for(get_user_model().objects.get(username="alice"))
    collections = alice.get("/users/alice/collections").json()
    assert [c["name"] for c in collections] == ["Robotics"]
    assert len(DEMO_COLLECTIONS) == 2 and alice.get("/users/demo/collections").json()[0]["count"] == 3


def test_allow_on_the_demo_app_lands_on_its_callback_page_and_the_code_buys_a_working_token(seeded):
    browser = Client()
    browser.force_login(get_user_model().objects.get(username="demo"))
    params = {"client_id": DEMO_APP_CLIENT_ID, "response_type": "code", "redirect_uri": demo_callback_url()}
    consent = browser.get("/login/oauth/authorize", params)
    assert consent.status_code == 200
    allowed = browser.post("/login/oauth/authorize", {**params, "allow": "Authorize", "scope": "read write"})
    assert allowed.status_code == 302
    landing = urlsplit(allowed["Location"])
    assert f"{landing.scheme}://{landing.netloc}{landing.path}" == demo_callback_url()
    code = parse_qs(landing.query)["code"][0]

    page = Client().get(f"{landing.path}?{landing.query}")
    html = page.content.decode()
    assert page.status_code == 200 and page["Cache-Control"].startswith("max-age=0")
    assert f'data-code="{code}"' in html and "site/demo-callback" in html
    assert 'data-token-url="http://testserver/login/oauth/access_token"' in html
    # What the page's script does next, with the same values: the code buys a token, which reads /users/me.
    token = Client().post("/login/oauth/access_token", {
        "grant_type": "authorization_code", "code": code, "redirect_uri": demo_callback_url(),
        "client_id": DEMO_APP_CLIENT_ID, "client_secret": DEMO_APP_SECRET,
    }, HTTP_ACCEPT="application/json").json()["access_token"]
    assert Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {token}").json()["name"] == "demo"


def test_the_callback_page_says_what_went_wrong_without_a_code():
    assert "No authorization code" in Client().get("/demo/callback").content.decode()
    denied = Client().get("/demo/callback?error=access_denied").content.decode()
    assert "did not go through: access_denied" in denied and "demo-callback.js" not in denied


def test_seed_demo_creates_a_token_that_authenticates_the_demo_user(demo_seeded, anon_client, s3):
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    from apps.demo.services import demo_seed

    summary = demo_seed()  # idempotent: same token again
    assert len(summary.token) == 32
    response = anon_client.get("/users/me", HTTP_AUTHORIZATION=f"Bearer {summary.token}")
    assert response.status_code == 200
    assert response.json()["name"] == "demo"


def test_seed_demo_gives_some_things_a_processed_model_once(demo_seeded, s3):
    from apps.uploads.models import ProcessingStatus, ThingFile

    call_command("seed_demo")
    call_command("seed_demo")
    files = ThingFile.objects.filter(name__in=["shelf-bracket.stl", "calibration-cube.stl", "tool-holder.stl"])
    assert files.count() == 3
    assert all(f.status == ProcessingStatus.LIVE and f.threejs_key and f.thumbnail_key for f in files)
    geometry = files.get(name="calibration-cube.stl").geometry
    assert geometry and geometry["size_mm"] == {"x": 20.0, "y": 20.0, "z": 20.0}


def test_a_restarted_object_store_gets_the_demo_objects_back(seeded, s3):
    """moto keeps objects in memory: after `make run` restarts it, the next seed puts the demo's back."""
    from django.conf import settings

    from apps.uploads import store
    from apps.uploads.models import Image, ThingFile

    listed = s3.list_objects_v2(Bucket=settings.S3_BUCKET, Prefix="demo/")["Contents"]
    for entry in listed:
        s3.delete_object(Bucket=settings.S3_BUCKET, Key=entry["Key"])
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    demo_rows: list = [*ThingFile.objects.filter(key__startswith="demo/"), *Image.objects.filter(key__startswith="demo/")]
    assert len(demo_rows) == len(DEMO_MODELS) * 2 + len(DEMO_THING_PHOTOS) + len(DEMO_MAKE_PHOTOS)  # + renders
    assert all(row.status == "live" and store.head(row.key) is not None for row in demo_rows)
