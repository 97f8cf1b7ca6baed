"""Makes on the site (issue 15): the Thing page's makes and "I made one" (the upload flow creates the make
at finalize, spec §4.10), the make's description, likes and deletion."""

import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.makes.models import Make
from apps.makes.tests.factories import MakeFactory, make_image
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.tests.upload_helpers import png_bytes, store_post

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_thing_page_shows_its_visible_makes_and_i_made_one(browser):
    thing = ThingFactory()
    shown = MakeFactory(thing=thing)
    make_image(shown)
    MakeFactory(thing=thing, is_hidden=True, creator=UserFactory(username="spammer"))
    html = browser.get(f"/thing:{thing.pk}").content.decode()
    assert f'href="/make:{shown.pk}"' in html and "spammer" not in html
    assert (
        'data-dialog-open="made-one-dialog"' in html
        and f'data-start-url="/thing:{thing.pk}/makes/upload"' in html
    )


def test_a_draft_offers_no_i_made_one(user, browser):
    draft = ThingFactory(creator=user, is_published=False, published_at=None)
    assert "made-one-dialog" not in browser.get(f"/thing:{draft.pk}").content.decode()


def test_i_made_one_posts_the_photo_to_the_store_and_creates_the_make_at_finalize(
    browser, user, django_capture_on_commit_callbacks
):
    thing = ThingFactory()
    descriptor = browser.post(
        f"/thing:{thing.pk}/makes/upload", {"filename": "mine.png"}, content_type="application/json", **JSON
    ).json()
    assert descriptor["kind"] == "image" and not Make.objects.exists()
    assert store_post(descriptor, png_bytes(), filename="mine.png").status_code == 303
    with django_capture_on_commit_callbacks(execute=True):
        done = browser.post(f"/account/uploads/{descriptor['upload_id']}/finalize", **JSON).json()
    make = Make.objects.get(creator=user)
    assert done == {"ok": True, "kind": "make", "next": f"/make:{make.pk}"}
    assert Thing.objects.get(pk=thing.pk).make_count == 1
    assert make.images.get().status == "live"


def test_i_made_one_needs_a_published_thing_the_visitor_may_see(browser):
    draft = ThingFactory(is_published=False, published_at=None)
    response = browser.post(
        f"/thing:{draft.pk}/makes/upload", {"filename": "a.png"}, content_type="application/json"
    )
    assert response.status_code == 404


def test_only_images_make_a_make(browser):
    thing = ThingFactory()
    response = browser.post(
        f"/thing:{thing.pk}/makes/upload", {"filename": "model.stl"}, content_type="application/json", **JSON
    )
    assert response.status_code == 400 and "Only images" in response.json()["error"]


def test_the_creator_describes_and_deletes_their_make(browser, user):
    make = MakeFactory(creator=user, description="")
    browser.post(f"/make:{make.pk}/edit", {"description": "Silk PLA, 0.16 mm"})
    assert Make.objects.get(pk=make.pk).description == "Silk PLA, 0.16 mm"
    assert browser.post(f"/make:{make.pk}/delete").status_code == 302
    assert not Make.objects.filter(pk=make.pk).exists()


def test_others_cannot_change_a_make_but_can_like_it(browser):
    make = MakeFactory(description="Theirs")
    assert browser.post(f"/make:{make.pk}/edit", {"description": "Mine now"}).status_code == 404
    assert browser.post(f"/make:{make.pk}/delete").status_code == 404
    liked = browser.post(f"/make:{make.pk}/like", {"action": "like"}, **JSON).json()
    assert liked["like_count"] == 1 and liked["is_liked"] is True
    assert Make.objects.get(pk=make.pk).description == "Theirs"


def test_the_make_page_shows_the_description_form_to_its_creator_only(browser, user):
    mine = MakeFactory(creator=user)
    theirs = MakeFactory()
    assert "Describe your make" in browser.get(f"/make:{mine.pk}").content.decode()
    assert "Describe your make" not in browser.get(f"/make:{theirs.pk}").content.decode()
