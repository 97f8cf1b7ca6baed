"""The admin's "View on site" (apps.core.adminkit.sitelink) for makes, make photos, comments and users: offered
only where the page it names answers for the moderator looking, by that page's own rule. Each link offered is
followed and answers; each left out names a page that is "not found" for them."""
import pytest
from django.test import Client
from django.urls import reverse

from apps.accounts.tests.factories import UserFactory
from apps.comments.models import Comment
from apps.comments.tests.factories import CommentFactory
from apps.makes.tests.factories import MakeFactory, make_image
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def moderator(db):
    client = Client()
    client.force_login(UserFactory(username="moderator", is_staff=True, is_superuser=True))
    return client


def _offered(moderator, change_url: str, page_url: str) -> bool:
    page = moderator.get(change_url)
    assert page.status_code == 200
    offered = page.context["has_absolute_url"]
    assert (f'href="{page_url}"' in page.content.decode()) is offered
    # The rule is the page's: what is offered answers, what is left out is "not found" for the moderator.
    assert moderator.get(page_url.split("#")[0]).status_code == (200 if offered else 404)
    return offered


@pytest.fixture
def things(db):
    return {
        "published": ThingFactory(is_published=True),
        "hidden": ThingFactory(is_published=True, is_hidden=True),
        "draft": ThingFactory(is_published=False),
        "private": ThingFactory(is_published=True, is_private=True),
    }


# A make's page shows a make of a Thing the viewer may see (thing_visible_q): staff see a hidden Thing's
# makes, a draft's and a private Thing's are their creator's alone.
MAKE_PAGE_ANSWERS = {"published": True, "hidden": True, "draft": False, "private": False}


def test_a_makes_link_and_its_photos_follow_the_make_pages_rule(moderator, things):
    for state, thing in things.items():
        make = MakeFactory(thing=thing)
        page = reverse("make-page", args=[make.pk])
        assert _offered(moderator, f"/admin/makes/make/{make.pk}/change/", page) is MAKE_PAGE_ANSWERS[state], state
        photo = make_image(make)
        assert _offered(moderator, f"/admin/uploads/image/{photo.pk}/change/", page) is MAKE_PAGE_ANSWERS[state]


def test_a_hidden_make_of_a_published_thing_is_offered_to_moderators(moderator, things):
    make = MakeFactory(thing=things["published"], is_hidden=True)
    assert _offered(moderator, f"/admin/makes/make/{make.pk}/change/", reverse("make-page", args=[make.pk]))


def test_a_comments_link_follows_the_rule_of_the_page_it_is_shown_on(moderator, things):
    thing_page_answers = {"published": True, "hidden": True, "draft": False, "private": False}
    for state, thing in things.items():
        on_thing = CommentFactory(thing=thing)
        page = f"{reverse('thing-page', args=[thing.pk])}#comment-{on_thing.pk}"
        assert _offered(moderator, f"/admin/comments/comment/{on_thing.pk}/change/", page) \
            is thing_page_answers[state], state
        make = MakeFactory(thing=thing)
        on_make = CommentFactory(thing=None, make=make, target_type=Comment.TargetType.MAKE)
        page = f"{reverse('make-page', args=[make.pk])}#comment-{on_make.pk}"
        assert _offered(moderator, f"/admin/comments/comment/{on_make.pk}/change/", page) \
            is MAKE_PAGE_ANSWERS[state], state


def test_a_suspended_users_profile_is_not_offered(moderator):
    active = UserFactory(username="maker")
    suspended = UserFactory(username="gone", is_active=False)
    for user, offered in ((active, True), (suspended, False)):
        page = reverse("accounts:profile", args=[user.username])
        assert _offered(moderator, f"/admin/accounts/user/{user.pk}/change/", page) is offered
