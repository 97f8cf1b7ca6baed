"""The site's write routes (issue 15) act only for whoever may: another signed-in user, with a valid
session and CSRF token, gets 404 on every owner-only route of A's objects and changes nothing, and never
sees A's draft through a page. (Login and CSRF on every page route: test_pages.py.)"""

import pytest
from django.test import Client
from django.utils.html import escape

from apps.makes.models import Make
from apps.things.models import Thing
from apps.thingcollections.models import Collection, CollectionThing
from apps.uploads.models import Image, ThingFile, Upload


def _snapshot(world):
    return {
        "thing": Thing.objects.filter(pk=world.thing.pk).values("name", "is_published", "is_wip").get(),
        "draft": Thing.objects.filter(pk=world.draft.pk).values("is_published").get(),
        "files": ThingFile.objects.count(),
        "images": list(Image.objects.order_by("pk").values_list("pk", "rank", "featured")),
        "uploads": list(Upload.objects.order_by("pk").values_list("pk", "status")),
        "collection": Collection.objects.filter(pk=world.collection.pk).values("name").get(),
        "entries": CollectionThing.objects.count(),
        "make": Make.objects.filter(pk=world.make.pk).values("description").get(),
    }


def owner_only_routes(world):
    thing, draft, image = world.thing.pk, world.draft.pk, world.image.pk
    return [
        (f"/thing:{thing}/edit", {"name": "Taken over", "license": "cc"}),
        (f"/thing:{draft}/publish", {}),
        (f"/thing:{thing}/delete", {"confirm": world.thing.name}),
        (f"/thing:{thing}/uploads", {"filename": "evil.stl"}),
        (f"/thing:{thing}/files/{world.file.pk}/delete", {}),
        (f"/thing:{thing}/images/{image}/delete", {}),
        (f"/thing:{thing}/images/{image}/feature", {}),
        (f"/thing:{thing}/images/{image}/move", {"direction": "down"}),
        (f"/thing:{thing}/images/order", {"ids": [image]}),
        (f"/account/uploads/{world.upload.pk}/finalize", {}),
        (f"/collection:{world.collection.pk}/edit", {"name": "Mine now"}),
        (f"/collection:{world.collection.pk}/things/{thing}/remove", {}),
        (f"/collection:{world.collection.pk}/delete", {}),
        (f"/make:{world.make.pk}/edit", {"description": "Mine now"}),
        (f"/make:{world.make.pk}/delete", {}),
        # A's draft is no one else's to act on at all.
        (f"/thing:{draft}/like", {}),
        (f"/thing:{draft}/watch", {}),
        (f"/thing:{draft}/comments", {"body": "hi"}),
        (f"/thing:{draft}/collect", {"new_name": "x"}),
        (f"/thing:{draft}/makes/upload", {"filename": "x.png"}),
    ]


@pytest.mark.django_db
def test_another_user_changes_nothing_of_a_through_the_site(world, user_b):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user_b)
    token = browser.get("/").cookies["csrftoken"].value
    before = _snapshot(world)
    problems = []
    for path, data in owner_only_routes(world):
        response = browser.post(path, data, HTTP_X_CSRFTOKEN=token)
        if response.status_code != 404:
            problems.append(f"{path}: {response.status_code}")
    assert problems == []
    assert _snapshot(world) == before


@pytest.mark.django_db
def test_no_page_shows_as_draft_to_anyone_else(world, user_b):
    browser = Client()
    browser.force_login(user_b)
    pages = [
        "/",
        "/browse/newest",
        "/find",
        f"/@{world.owner.username}",
        f"/collection:{world.collection.pk}",
        f"/groups/{world.group.slug}",
        f"/thing:{world.thing.pk}",
    ]
    for path in pages:
        html = browser.get(path).content.decode()
        assert escape(world.draft.name) not in html and f'/thing:{world.draft.pk}"' not in html, path
    for path in (
        f"/thing:{world.draft.pk}",
        f"/thing:{world.draft.pk}/files/status",
        f"/thing:{world.draft.pk}/package",
        f"/thing:{world.draft.pk}/files/{world.draft_file.pk}/download",
    ):
        assert browser.get(path).status_code == 404, path
