"""Creating, editing and acting on Things from the site (issue 15): /new, /thing:<id>/edit, publish, like,
watch, delete. Each goes through the same service as the API, with the session and CSRF."""

import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Like, Remix, Thing, Watch
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def draft(user):
    return ThingFactory(creator=user, name="My draft", description="", is_published=False, published_at=None)


def _form(**overrides):
    return {
        "name": "Cable clip",
        "description": "Holds **two** cables.",
        "instructions": "Print flat.",
        "category": "Office Organization",
        "license": "cc-nc-sa",
        "tags": "cable, desk tidy",
        **overrides,
    }


# --- /new ----------------------------------------------------------------------------------------------


def test_the_new_thing_page_needs_a_login(client):
    response = client.get("/new")
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=/new")


def test_the_new_thing_form_creates_an_unpublished_draft_and_opens_its_edit_page(browser, user):
    response = browser.post("/new", _form(is_wip="on"))
    thing = Thing.objects.get(creator=user)
    assert response.status_code == 302 and response["Location"] == f"/thing:{thing.pk}/edit"
    assert not thing.is_published and thing.is_wip and thing.license == "cc-nc-sa"
    assert thing.category == category("office-organization")
    assert [t.name for t in thing.tags.order_by("thingtag__position")] == ["cable", "desk_tidy"]


def test_the_new_thing_form_shows_the_services_validation_errors(browser):
    response = browser.post("/new", _form(tags="cable, !!!"))
    assert response.status_code == 400
    assert "has nothing left once normalised" in response.content.decode()
    assert not Thing.objects.exists()


def test_remix_this_prefills_the_form_and_links_the_new_thing_to_its_ancestor(browser, user):
    original = ThingFactory(name="Original arm")
    page = browser.get(f"/new?remix={original.pk}").content.decode()
    assert "Remix of Original arm" in page and f'name="ancestors" value="{original.pk}"' in page
    browser.post("/new", {**_form(name="Longer arm"), "ancestors": [str(original.pk)]})
    remix = Thing.objects.get(name="Longer arm")
    assert list(Remix.objects.filter(derivative=remix).values_list("ancestor_id", flat=True)) == [original.pk]


def test_remixing_someone_elses_draft_is_not_possible(browser):
    hidden = ThingFactory(name="Secret", is_published=False, published_at=None)
    assert "Secret" not in browser.get(f"/new?remix={hidden.pk}").content.decode()
    browser.post("/new", {**_form(name="Sneaky"), "ancestors": [str(hidden.pk)]})
    assert not Remix.objects.exists()


# --- /thing:<id>/edit ------------------------------------------------------------------------------------


def test_the_edit_page_is_its_owners_only(draft):
    stranger = Client()
    stranger.force_login(UserFactory())
    published = ThingFactory(creator=draft.creator)
    assert stranger.get(f"/thing:{draft.pk}/edit").status_code == 404
    assert stranger.get(f"/thing:{published.pk}/edit").status_code == 404
    assert stranger.post(f"/thing:{published.pk}/edit", _form()).status_code == 404
    assert Thing.objects.get(pk=published.pk).name != "Cable clip"


def test_the_edit_page_saves_what_changed_and_the_wip_flag(browser, draft):
    response = browser.post(f"/thing:{draft.pk}/edit", _form(is_wip="on"))
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.name == "Cable clip" and draft.description == "Holds **two** cables." and draft.is_wip
    browser.post(f"/thing:{draft.pk}/edit", _form())
    draft.refresh_from_db()
    assert not draft.is_wip


def test_the_edit_page_says_in_words_why_a_draft_cannot_be_published(browser, draft):
    html = browser.get(f"/thing:{draft.pk}/edit").content.decode()
    assert "It cannot be published yet" in html and "Description cannot be blank." in html


def test_publishing_an_unpublishable_draft_shows_its_blockers_and_keeps_it_a_draft(browser, draft):
    response = browser.post(f"/thing:{draft.pk}/publish", follow=True)
    assert "This Thing cannot be published yet: Description cannot be blank." in response.content.decode()
    assert not Thing.objects.get(pk=draft.pk).is_published


def test_publishing_as_json_answers_the_blockers(browser, draft):
    response = browser.post(f"/thing:{draft.pk}/publish", **JSON)
    assert response.status_code == 400
    assert response.json()["errors"] == ["Description cannot be blank."]


def test_publishing_a_complete_draft_makes_it_public(browser, draft):
    Thing.objects.filter(pk=draft.pk).update(description="Now it has one.")
    response = browser.post(f"/thing:{draft.pk}/publish")
    assert response.status_code == 302 and response["Location"] == f"http://testserver/thing:{draft.pk}"
    assert Thing.objects.get(pk=draft.pk).is_published
    assert Client().get(f"/thing:{draft.pk}").status_code == 200


def test_only_the_owner_publishes(draft):
    stranger = Client()
    stranger.force_login(UserFactory())
    Thing.objects.filter(pk=draft.pk).update(description="Complete.")
    assert stranger.post(f"/thing:{draft.pk}/publish").status_code == 404
    assert not Thing.objects.get(pk=draft.pk).is_published


def test_deleting_needs_the_name_typed_and_then_removes_the_thing(browser, draft):
    browser.post(f"/thing:{draft.pk}/delete", {"confirm": "wrong"})
    assert Thing.objects.filter(pk=draft.pk).exists()
    response = browser.post(f"/thing:{draft.pk}/delete", {"confirm": "My draft"})
    assert response.status_code == 302 and not Thing.objects.filter(pk=draft.pk).exists()


# --- like, watch ------------------------------------------------------------------------------------------


def test_liking_and_unliking_from_the_page_answers_the_new_count(browser, user):
    thing = ThingFactory()
    liked = browser.post(f"/thing:{thing.pk}/like", {"action": "like"}, **JSON)
    assert liked.json() == {"ok": True, "message": "Added to your likes.", "like_count": 1, "is_liked": True}
    again = browser.post(f"/thing:{thing.pk}/like", {"action": "like"}, **JSON)
    assert again.json()["like_count"] == 1
    unliked = browser.post(f"/thing:{thing.pk}/like", {"action": "unlike"}, **JSON)
    assert unliked.json()["like_count"] == 0 and not Like.objects.exists()


def test_liking_without_javascript_goes_back_to_the_page(browser):
    thing = ThingFactory()
    response = browser.post(f"/thing:{thing.pk}/like", {"action": "like"})
    assert response.status_code == 302 and response["Location"].endswith(f"/thing:{thing.pk}")
    assert Like.objects.filter(thing=thing).count() == 1


def test_liking_ones_own_thing_is_refused_in_words(browser, user):
    thing = ThingFactory(creator=user)
    response = browser.post(f"/thing:{thing.pk}/like", **JSON)
    assert response.status_code == 400 and response.json()["error"] == "You cannot like your own Thing."


def test_someone_elses_draft_cannot_be_liked_or_watched(browser):
    hidden = ThingFactory(is_published=False, published_at=None)
    assert browser.post(f"/thing:{hidden.pk}/like").status_code == 404
    assert browser.post(f"/thing:{hidden.pk}/watch").status_code == 404


def test_watching_toggles(browser, user):
    thing = ThingFactory()
    assert browser.post(f"/thing:{thing.pk}/watch", **JSON).json()["watching"] is True
    assert Watch.objects.filter(user=user, thing=thing).exists()
    assert browser.post(f"/thing:{thing.pk}/watch", **JSON).json()["watching"] is False


def test_a_visitor_is_sent_to_log_in_and_a_script_gets_a_json_401(client):
    thing = ThingFactory()
    assert client.post(f"/thing:{thing.pk}/like")["Location"].startswith("/login/")
    response = client.post(f"/thing:{thing.pk}/like", **JSON)
    assert response.status_code == 401 and response.json()["type"] == "UNAUTHORIZED"
