"""The dialog pages the host shows in its modal (spec §4.11): file_select, thing_select, thing_search,
thing_save. Each ends by handing a result object to the host (`result` in the last page's context)."""

import html
import json
import re

import pytest
from django.test import Client

from apps.makes.models import Make
from apps.search.services import thing_index_search
from tests.support.api import csrf_token
from apps.thingcollections.tests.factories import CollectionThingFactory
from apps.things import services as thing_services
from apps.things.tests.factories import ThingFactory, category
from apps.uploads.models import ProcessingStatus
from apps.uploads.tests.file_factories import ThingFileFactory

pytestmark = pytest.mark.django_db
DIALOGS = ("file_select", "thing_select", "thing_search", "thing_save")


def picks(response) -> list[dict]:
    """The result objects of the page's pick buttons, in order."""
    return [
        json.loads(html.unescape(raw))
        for raw in re.findall(r'data-result="([^"]*)"', response.content.decode())
    ]


def names(response) -> list[str]:
    return re.findall(r'<span class="pick-name">([^<]*)</span>', html.unescape(response.content.decode()))


def result(response) -> dict:
    return response.context["result"]


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user, name="Cable clip")


# --- every dialog ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", DIALOGS)
def test_a_dialog_is_framed_by_the_site_only_and_never_cached(browser, thing, name):
    response = browser.get(f"/thing-apps/dialogs/{name}?thing_id={thing.pk}")
    assert response.status_code == 200
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert "no-cache" in response["Cache-Control"]
    body = response.content.decode()
    assert "/static/thingapps/dialog.js" in body
    assert """data-result='{"status": "cancelled"}'>Cancel</button>""" in body


@pytest.mark.parametrize("name", DIALOGS)
def test_a_dialog_without_a_session_ends_with_an_error_result(name):
    response = Client().get(f"/thing-apps/dialogs/{name}?thing_id=1")
    assert response.status_code == 401
    assert result(response) == {"status": "error", "error": "Unauthorized", "type": "UNAUTHORIZED"}
    assert 'id="dialog-result"' in response.content.decode()


@pytest.mark.parametrize("name", ("file_select", "thing_select", "thing_search"))
def test_list_dialogs_are_get_only(browser, name):
    response = browser.post(f"/thing-apps/dialogs/{name}", {"csrfmiddlewaretoken": csrf_token(browser)})
    assert response.status_code == 405


# --- file_select -------------------------------------------------------------------------------------


def test_file_select_lists_the_things_files_and_answers_thing_id_and_file_id(browser, thing):
    first = ThingFileFactory(thing=thing, name="clip.stl")
    second = ThingFileFactory(thing=thing, name="clip.obj")
    ThingFileFactory(name="elsewhere.stl")
    response = browser.get(f"/thing-apps/dialogs/file_select?thing_id={thing.pk}")
    assert names(response) == ["clip.stl", "clip.obj"]
    assert picks(response)[:2] == [
        {"status": "ok", "thing_id": thing.pk, "file_id": first.pk},
        {"status": "ok", "thing_id": thing.pk, "file_id": second.pk},
    ]


def test_file_select_filters_by_the_comma_separated_extensions_ignoring_case(browser, thing):
    for name in ("a.stl", "b.STL", "c.obj", "d.txt", "stl", "e.stl.zip"):
        ThingFileFactory(thing=thing, name=name)
    response = browser.get(f"/thing-apps/dialogs/file_select?thing_id={thing.pk}&extension=stl,%20.OBJ")
    assert names(response) == ["a.stl", "b.STL", "c.obj"]
    assert "only .stl, .obj files" in response.content.decode()


def test_file_select_says_so_when_no_file_matches(browser, thing):
    ThingFileFactory(thing=thing, name="a.obj")
    body = browser.get(f"/thing-apps/dialogs/file_select?thing_id={thing.pk}&extension=stl").content.decode()
    assert "This Thing has no files of that type." in body


def test_file_select_shows_others_only_live_files(browser, user):
    thing = ThingFactory(name="Someone's")
    ThingFileFactory(thing=thing, name="live.stl")
    ThingFileFactory(thing=thing, name="busy.stl", status=ProcessingStatus.PROCESSING)
    assert names(browser.get(f"/thing-apps/dialogs/file_select?thing_id={thing.pk}")) == ["live.stl"]
    own = ThingFactory(creator=user)
    ThingFileFactory(thing=own, name="mine-busy.stl", status=ProcessingStatus.PROCESSING)
    assert names(browser.get(f"/thing-apps/dialogs/file_select?thing_id={own.pk}")) == ["mine-busy.stl"]


@pytest.mark.parametrize("thing_id", ["", "abc", "0", "-3", str(2**63), "99999999"])
def test_file_select_of_a_missing_thing_ends_with_not_found(browser, thing_id):
    response = browser.get(f"/thing-apps/dialogs/file_select?thing_id={thing_id}")
    assert response.status_code == 404
    assert result(response) == {"status": "error", "error": "Not Found", "type": "NOT_FOUND"}


def test_file_select_of_someone_elses_draft_ends_with_not_found(browser):
    draft = ThingFactory(is_published=False, published_at=None)
    ThingFileFactory(thing=draft, name="secret.stl")
    response = browser.get(f"/thing-apps/dialogs/file_select?thing_id={draft.pk}")
    assert response.status_code == 404
    assert "secret.stl" not in response.content.decode()


@pytest.mark.parametrize("count", [1, 30])
def test_file_select_costs_the_same_queries_for_1_or_30_files(
    browser, thing, count, django_assert_num_queries
):
    for n in range(count):
        ThingFileFactory(thing=thing, name=f"part{n}.stl")
    # session, user; the Thing; the page's count and its files.
    with django_assert_num_queries(5):
        response = browser.get(f"/thing-apps/dialogs/file_select?thing_id={thing.pk}")
    assert len(names(response)) == min(count, 20)


def test_file_select_pages_by_20(browser, thing):
    for n in range(25):
        ThingFileFactory(thing=thing, name=f"part{n:02}.stl")
    response = browser.get(f"/thing-apps/dialogs/file_select?thing_id={thing.pk}&extension=stl&page=2")
    assert names(response) == [f"part{n:02}.stl" for n in range(20, 25)]
    assert f'href="?thing_id={thing.pk}&amp;extension=stl&amp;page=1"' in response.content.decode()
    assert len(names(browser.get(f"/thing-apps/dialogs/file_select?thing_id={thing.pk}&page=x"))) == 20


# --- thing_select ------------------------------------------------------------------------------------


def test_thing_select_lists_the_things_the_user_designed_drafts_included_newest_first(browser, user, thing):
    draft = ThingFactory(creator=user, name="My draft", is_published=False, published_at=None)
    ThingFactory(name="Not mine")
    response = browser.get("/thing-apps/dialogs/thing_select")
    assert names(response) == ["My draft", "Cable clip"]
    assert picks(response)[:2] == [
        {"status": "ok", "thing_id": draft.pk},
        {"status": "ok", "thing_id": thing.pk},
    ]
    assert 'aria-current="page" data-filter="designed"' in response.content.decode()


def test_thing_select_filters_made_collected_and_liked(browser, user, thing):
    made, collected, liked = (ThingFactory(name=n) for n in ("Made one", "Collected one", "Liked one"))
    Make.objects.create(thing=made, creator=user)
    Make.objects.create(thing=made, creator=user)  # twice: listed once
    Make.objects.create(thing=ThingFactory(name="Hidden make"), creator=user, is_hidden=True)
    Make.objects.create(thing=ThingFactory(name="Someone else's make"), creator=ThingFactory().creator)
    CollectionThingFactory(collection__creator=user, thing=collected)
    CollectionThingFactory(thing=ThingFactory(name="In someone else's collection"))
    thing_services.thing_like(user=user, thing=liked)
    assert names(browser.get("/thing-apps/dialogs/thing_select?filter=made")) == ["Made one"]
    assert names(browser.get("/thing-apps/dialogs/thing_select?filter=collected")) == ["Collected one"]
    assert names(browser.get("/thing-apps/dialogs/thing_select?filter=liked")) == ["Liked one"]


def test_thing_select_never_shows_someone_elses_draft(browser, user):
    draft = ThingFactory(name="Their draft", is_published=False, published_at=None)
    Make.objects.create(thing=draft, creator=user)
    CollectionThingFactory(collection__creator=user, thing=draft)
    for name in ("made", "collected"):
        assert names(browser.get(f"/thing-apps/dialogs/thing_select?filter={name}")) == []


@pytest.mark.parametrize(
    "name, empty",
    [
        ("designed", "You have not designed any Things yet."),
        ("made", "You have not posted a make of any Thing yet."),
        ("collected", "Your collections hold no Things yet."),
        ("liked", "You have not liked any Things yet."),
    ],
)
def test_thing_select_says_when_a_list_is_empty(browser, name, empty):
    assert empty in browser.get(f"/thing-apps/dialogs/thing_select?filter={name}").content.decode()


def test_thing_select_reads_an_unknown_filter_as_designed(browser, thing):
    assert names(browser.get("/thing-apps/dialogs/thing_select?filter=%01bogus")) == ["Cable clip"]
    # docs/security.md (issue 14, finding 3): a NUL is refused before the dialog reads it.
    assert browser.get("/thing-apps/dialogs/thing_select?filter=%00bogus").status_code == 400


@pytest.mark.parametrize("filter_name", ["designed", "made", "collected", "liked"])
@pytest.mark.parametrize("count", [1, 30])
def test_thing_select_costs_the_same_queries_for_1_or_30_things(
    browser, user, filter_name, count, django_assert_num_queries
):
    for _ in range(count):
        thing = ThingFactory(creator=user) if filter_name == "designed" else ThingFactory()
        if filter_name == "made":
            Make.objects.create(thing=thing, creator=user)
        elif filter_name == "collected":
            CollectionThingFactory(collection__creator=user, thing=thing)
        elif filter_name == "liked":
            thing_services.thing_like(user=user, thing=thing)
    # session, user; the page's count and its Things (thumbnails in the same statement).
    with django_assert_num_queries(4):
        response = browser.get(f"/thing-apps/dialogs/thing_select?filter={filter_name}")
    assert len(names(response)) == min(count, 20)


# --- thing_search ------------------------------------------------------------------------------------


def test_thing_search_prefills_the_term_and_lists_matching_published_things(browser, user):
    bracket = ThingFactory(name="Shelf bracket", description="Holds a shelf.")
    ThingFactory(name="Cable clip", description="Holds cables.")
    ThingFactory(
        name="Draft bracket", description="Unfinished.", is_published=False, published_at=None, creator=user
    )
    from apps.things.models import Thing

    thing_index_search(thing_ids=Thing.objects.values_list("pk", flat=True))
    response = browser.get("/thing-apps/dialogs/thing_search?q=bracket")
    assert 'name="q" value="bracket"' in response.content.decode()
    assert names(response) == ["Shelf bracket"]
    assert picks(response)[0] == {"status": "ok", "thing_id": bracket.pk}


def test_thing_search_without_a_term_lists_the_newest_things(browser):
    ThingFactory(name="Older")
    ThingFactory(name="Newer")
    assert names(browser.get("/thing-apps/dialogs/thing_search")) == ["Newer", "Older"]


def test_thing_search_says_when_nothing_matches(browser):
    body = browser.get("/thing-apps/dialogs/thing_search?q=zzzz").content.decode()
    assert "No published Thing matches your search." in body


def test_thing_search_takes_any_term_without_failing(browser):
    for term in ['"unclosed', "-", "a" * 5000, "%00", "or or", "<script>"]:
        response = browser.get("/thing-apps/dialogs/thing_search", {"q": term})
        assert response.status_code == 200, term
    assert (
        "<script>" not in browser.get("/thing-apps/dialogs/thing_search", {"q": "<script>"}).content.decode()
    )


@pytest.mark.parametrize("count", [1, 30])
def test_thing_search_costs_the_same_queries_for_1_or_30_things(browser, count, django_assert_num_queries):
    for n in range(count):
        ThingFactory(name=f"Bracket {n}")
    # session, user; the result window's ids; the page's Things.
    with django_assert_num_queries(4):
        response = browser.get("/thing-apps/dialogs/thing_search")
    assert len(names(response)) == min(count, 20)


# --- thing_save --------------------------------------------------------------------------------------


def save(browser, **fields):
    return browser.post(
        "/thing-apps/dialogs/thing_save",
        {"step": "save", "csrfmiddlewaretoken": csrf_token(browser), **fields},
    )


def test_thing_save_prefills_the_form_from_the_apps_params(browser):
    response = browser.get(
        "/thing-apps/dialogs/thing_save",
        {
            "name": "Awesome Thing",
            "description": "Foo Bar",
            "category": "replacement parts",
            "tags": "iframe, app",
            "license": "gpl",
            "is_published": "1",
            "is_wip": "0",
        },
    )
    form = response.context["form"]
    assert form.initial["name"] == "Awesome Thing"
    assert form.initial["description"] == "Foo Bar"
    assert form.initial["category"] == "Replacement Parts"
    assert form.initial["tags"] == "iframe, app"
    assert form.initial["license"] == "gpl"
    assert form.initial["is_published"] is True and form.initial["is_wip"] is False
    assert "New Thing" in response.content.decode()


def test_thing_save_ignores_params_it_cannot_show(browser, user):
    user.default_license = "cc-nc"  # a user license no Thing may carry
    user.save(update_fields=["default_license"])
    response = browser.get(
        "/thing-apps/dialogs/thing_save",
        {"category": "No such category", "license": "mit", "is_wip": "maybe"},
    )
    initial = response.context["form"].initial
    assert "category" not in initial and "is_wip" not in initial
    assert initial["license"] == "cc-sa"


def test_thing_save_is_prefilled_from_the_thing_being_edited_then_from_the_params(browser, thing):
    thing.category = category("hobby")
    thing.save()
    response = browser.post(
        "/thing-apps/dialogs/thing_save",
        {
            "step": "prefill",
            "id": str(thing.pk),
            "description": "New text",
            "csrfmiddlewaretoken": csrf_token(browser),
        },
    )
    assert response.status_code == 200
    initial = response.context["form"].initial
    assert initial["id"] == thing.pk
    assert initial["name"] == "Cable clip"
    assert initial["description"] == "New text"
    assert initial["category"] == "Hobby"
    assert "Edit “Cable clip”" in response.content.decode()


def test_thing_save_answers_the_body_of_the_rest_create_call(browser, api):
    response = save(
        browser,
        name="Awesome Thing",
        description="Foo Bar",
        category="Hobby",
        tags="iframe, app,  ,Iframe",
        license="cc-nc-sa",
        is_wip="on",
    )
    assert response.status_code == 200
    body = result(response)
    assert body == {
        "status": "ok",
        "is_published": False,
        "thing": {
            "name": "Awesome Thing",
            "description": "Foo Bar",
            "license": "cc-nc-sa",
            "category": "Hobby",
            "tags": ["iframe", "app"],
            "is_wip": True,
        },
    }
    created = api.post("/things/", body["thing"], format="json")
    assert created.status_code == 200, created.json()
    assert created.json()["name"] == "Awesome Thing"
    assert created.json()["tag_names"] == ["iframe", "app"]


def test_thing_save_of_an_existing_thing_answers_its_id_and_a_body_for_the_update_call(
    browser, api, user, thing
):
    response = save(
        browser,
        id=str(thing.pk),
        name="Cable clip v2",
        description="",
        category="",
        tags="",
        license="cc",
        is_published="on",
    )
    body = result(response)
    assert body["id"] == thing.pk and body["is_published"] is True
    assert body["thing"] == {
        "name": "Cable clip v2",
        "description": "",
        "license": "cc",
        "category": "",
        "tags": [],
        "is_wip": False,
    }
    updated = api.patch(f"/things/{thing.pk}/", body["thing"], format="json")
    assert updated.status_code == 200, updated.json()
    assert updated.json()["name"] == "Cable clip v2"


def test_thing_save_shows_what_is_wrong_and_keeps_the_dialog_open(browser):
    response = save(browser, name="", license="mit", category="Nope", tags="ok, !!!")
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert set(errors) == {"name", "license", "category", "tags"}
    assert "result" not in response.context


def test_thing_save_of_someone_elses_thing_ends_with_forbidden(browser):
    theirs = ThingFactory()
    response = browser.get(f"/thing-apps/dialogs/thing_save?id={theirs.pk}")
    assert response.status_code == 403
    assert result(response)["type"] == "FORBIDDEN"
    assert save(browser, id=str(theirs.pk), name="Mine now", license="cc").status_code == 403


@pytest.mark.parametrize("thing_id", ["abc", "0", "99999999", str(2**64)])
def test_thing_save_of_a_missing_thing_ends_with_not_found(browser, thing_id):
    response = browser.get(f"/thing-apps/dialogs/thing_save?id={thing_id}")
    assert response.status_code == 404
    assert result(response)["type"] == "NOT_FOUND"


def test_thing_save_posts_need_the_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post("/thing-apps/dialogs/thing_save", {"step": "save", "name": "x"}).status_code == 403
