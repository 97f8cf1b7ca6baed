"""The Things, categories and tags admin: actions go through services, forms keep the spec's rules."""
import pytest
from django.contrib.admin import helpers
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Category, Tag, Thing
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db

THINGS = "/admin/things/thing/"
CATEGORIES = "/admin/things/category/"
TAGS = "/admin/things/tag/"


@pytest.fixture
def admin_browser(db):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


# --- Things --------------------------------------------------------------------------------------


def test_the_thing_changelist_searches_and_filters(admin_browser):
    thing = ThingFactory(name="Findable bracket", category=category("robotics"))
    ThingFactory(name="Other gadget")
    response = admin_browser.get(THINGS, {"q": "findable", "is_published__exact": "1"})
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [thing]
    by_creator = admin_browser.get(THINGS, {"q": thing.creator.username})
    assert list(by_creator.context["cl"].result_list) == [thing]
    filters = {"is_featured__exact": "0", "category__id__exact": thing.category_id}
    filtered = admin_browser.get(THINGS, filters)
    assert list(filtered.context["cl"].result_list) == [thing]


def test_the_thing_change_page_keeps_counters_read_only(admin_browser):
    thing = ThingFactory(tags=["gear"], like_count=4)
    response = admin_browser.get(f"{THINGS}{thing.pk}/change/")
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert "like_count" not in form.fields and "search_vector" not in form.fields
    assert "is_featured" not in form.fields and "name" in form.fields


def test_view_on_site_is_offered_only_where_the_things_page_answers_for_the_moderator(admin_browser):
    # A draft's and a private Thing's pages are their creator's alone (rules.thing_can_view); a hidden one's
    # answers for staff. Each link offered is followed: the page it names answers.
    published = ThingFactory(is_published=True)
    hidden = ThingFactory(is_published=True, is_hidden=True)
    draft = ThingFactory(is_published=False)
    private = ThingFactory(is_published=True, is_private=True)
    for thing, offered in ((published, True), (hidden, True), (draft, False), (private, False)):
        page = admin_browser.get(f"{THINGS}{thing.pk}/change/")
        assert page.context["has_absolute_url"] is offered, thing
        assert (f'href="/thing:{thing.pk}"' in page.content.decode()) is offered
        assert admin_browser.get(f"/thing:{thing.pk}").status_code == (200 if offered else 404)


def test_view_on_site_is_offered_for_a_tag_only_while_its_page_exists(admin_browser):
    tag = Tag.objects.create(name="crawled")
    thing = ThingFactory(is_published=False)
    thing.thingtag_set.create(tag=tag, position=0)
    assert admin_browser.get(f"{TAGS}{tag.pk}/change/").context["has_absolute_url"] is False
    assert admin_browser.get("/browse/tags/crawled").status_code == 404
    Thing.objects.filter(pk=thing.pk).update(is_published=True)
    assert admin_browser.get(f"{TAGS}{tag.pk}/change/").context["has_absolute_url"] is True
    assert admin_browser.get("/browse/tags/crawled").status_code == 200


def test_moderators_cannot_add_things(admin_browser):
    assert admin_browser.get(f"{THINGS}add/").status_code == 403


def test_the_feature_action_features_the_selected_things(admin_browser):
    chosen, other = ThingFactory.create_batch(2)
    response = admin_browser.post(
        THINGS, {"action": "feature_things", helpers.ACTION_CHECKBOX_NAME: [chosen.pk]}
    )
    assert response.status_code == 302
    chosen.refresh_from_db()
    other.refresh_from_db()
    assert chosen.is_featured and chosen.featured_at is not None
    assert not other.is_featured


def test_the_unfeature_action_unfeatures_the_selected_things(admin_browser, api):
    thing = ThingFactory()
    admin_browser.post(THINGS, {"action": "feature_things", helpers.ACTION_CHECKBOX_NAME: [thing.pk]})
    assert [t["id"] for t in api.get("/featured/").json()] == [thing.pk]
    admin_browser.post(THINGS, {"action": "unfeature_things", helpers.ACTION_CHECKBOX_NAME: [thing.pk]})
    thing.refresh_from_db()
    assert not thing.is_featured
    assert api.get("/featured/").json() == []


# --- Categories ----------------------------------------------------------------------------------


def test_the_category_changelist_is_in_tree_order_with_counts(admin_browser):
    ThingFactory(category=category("robotics"))
    response = admin_browser.get(CATEGORIES)
    assert response.status_code == 200
    rows = list(response.context["cl"].result_list)
    assert rows[0].slug == "3d-printing" and rows[1].parent_id == rows[0].pk
    assert next(c for c in rows if c.slug == "hobby").thing_count == 1


def _category_form(**fields):
    return {"name": "Drones", "slug": "", "parent": "", "position": "3", **fields}


def test_a_new_category_gets_the_slug_of_its_name(admin_browser):
    response = admin_browser.post(f"{CATEGORIES}add/", _category_form(name="Flying Drones"))
    assert response.status_code == 302
    assert Category.objects.get(name="Flying Drones").slug == "flying-drones"


def test_a_slug_other_than_the_names_is_refused(admin_browser):
    response = admin_browser.post(f"{CATEGORIES}add/", _category_form(slug="drones-and-more"))
    assert response.status_code == 200
    assert "slug" in response.context["adminform"].form.errors
    assert not Category.objects.filter(name="Drones").exists()


def test_a_sub_category_cannot_be_a_parent(admin_browser):
    response = admin_browser.post(f"{CATEGORIES}add/", _category_form(parent=category("robotics").pk))
    assert response.status_code == 200
    assert "parent" in response.context["adminform"].form.errors


def test_a_category_with_children_stays_top_level(admin_browser):
    hobby = category("hobby")
    response = admin_browser.post(
        f"{CATEGORIES}{hobby.pk}/change/",
        _category_form(name="Hobby", slug="hobby", parent=category("art").pk, position="4"),
    )
    assert response.status_code == 200
    assert "parent" in response.context["adminform"].form.errors


def test_a_sub_category_can_be_added_under_a_top_level_one(admin_browser, api):
    response = admin_browser.post(f"{CATEGORIES}add/", _category_form(parent=category("hobby").pk))
    assert response.status_code == 302
    assert api.get("/categories/drones/").json()["parent"] == "hobby"


# --- Tags ----------------------------------------------------------------------------------------


def test_the_tag_changelist_shows_usage_counts(admin_browser):
    ThingFactory.create_batch(2, tags=["gear"])
    ThingFactory(tags=["gear"], is_published=False, published_at=None)
    response = admin_browser.get(TAGS, {"q": "gear"})
    assert response.status_code == 200
    (tag,) = response.context["cl"].result_list
    assert (tag.thing_count, tag.published_count) == (3, 2)


def test_a_tag_name_is_normalised_on_save(admin_browser):
    response = admin_browser.post(f"{TAGS}add/", {"name": "Robot Arm!"})
    assert response.status_code == 302
    assert Tag.objects.filter(name="Robot_Arm").exists()


def test_a_tag_differing_only_in_case_is_refused(admin_browser):
    Tag.objects.create(name="Gear")
    response = admin_browser.post(f"{TAGS}add/", {"name": "gear"})
    assert response.status_code == 200
    assert Tag.objects.filter(name__iexact="gear").count() == 1


def test_deleting_a_thing_in_the_admin_removes_it_from_counts(admin_browser, api):
    thing = ThingFactory(tags=["gear"])
    response = admin_browser.post(f"{THINGS}{thing.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Thing.objects.filter(pk=thing.pk).exists()
    assert api.get("/tags/gear/").status_code == 404
