"""Follow → publish → notification, in headless Chromium (issue 26): member B follows maker A from A's
page (in place, the count follows), A publishes a Thing, B's bell shows the unread count and the
notifications page lists it; B likes the Thing in place (every count on the page moves without a
reload) and edits a comment of theirs, which is then marked edited."""
import re

import pytest

from apps.accounts.models import Follow
from apps.accounts.tests.factories import UserFactory
from apps.comments.models import Comment
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_follower_hears_of_a_new_thing_likes_it_in_place_and_edits_a_comment(signed_in, live_server):
    maker = UserFactory(username="ada")
    fan = UserFactory(username="bo")
    draft = ThingFactory(creator=maker, name="Cable Ring", is_published=False, published_at=None)

    b = signed_in(fan)
    b.goto(f"{live_server.url}/@ada")
    assert b.locator("[data-bell-count]").text_content() == "0"
    follow = b.get_by_role("button", name="Follow ada")
    follow.click()
    b.get_by_role("button", name="Following ada").wait_for()
    assert b.locator('[data-count="follow-user-ada"]').first.text_content() == "1"
    assert Follow.objects.filter(follower=fan, followed=maker).exists()

    a = signed_in(maker)
    a.goto(f"{live_server.url}/thing:{draft.pk}/edit")
    a.get_by_role("button", name="Publish").click()
    a.wait_for_url(re.compile(rf"/thing:{draft.pk}$"))
    assert Thing.objects.get(pk=draft.pk).is_published

    b.goto(f"{live_server.url}/")
    bell = b.get_by_role("link", name="Notifications, 1 unread")
    bell.wait_for()
    bell.click()
    b.wait_for_url(re.compile(r"/notifications$"))
    b.get_by_role("link", name="ada published a new Thing: “Cable Ring”.").wait_for()
    b.get_by_role("button", name=re.compile("^Mark read")).click()
    b.wait_for_function("() => document.querySelector('[data-bell-count]').textContent === '0'")

    # Like in place: the button and the stats line move together, without a reload.
    b.get_by_role("link", name="ada published a new Thing: “Cable Ring”.").click()
    b.wait_for_url(re.compile(rf"/thing:{draft.pk}$"))
    b.evaluate("() => { window.__same_page = true; }")
    b.get_by_role("button", name=re.compile("^♥? ?Like")).click()
    b.wait_for_function(
        f"() => document.querySelector('[data-count=\"thing-likes-{draft.pk}\"]').textContent === '1'"
    )
    assert b.locator("form[data-toggle=like] button").get_attribute("aria-pressed") == "true"
    assert b.evaluate("() => window.__same_page") is True

    # A comment, then its edit: marked edited.
    b.get_by_label("Add a comment").fill("Nice rign")
    counter = b.locator("#comment-body-count")
    assert counter.text_content() == "9 of 10,000 characters"
    b.get_by_role("button", name="Post comment").click()
    b.get_by_text("Your comment is posted.").wait_for()
    comment = Comment.objects.get(user=fan)
    b.locator(f"#comment-{comment.pk} summary", has_text="Edit").click()
    b.locator(f"#edit-{comment.pk}").fill("Nice ring")
    b.get_by_role("button", name="Save changes").click()
    b.get_by_text("Your comment is saved.").wait_for()
    assert b.locator(f"#comment-{comment.pk} .comment-edited").is_visible()
    assert "Nice ring" in b.locator(f"#comment-{comment.pk} .comment-body").text_content()

    # The maker heard of the like and the comment.
    a.goto(f"{live_server.url}/notifications")
    a.get_by_role("link", name="bo liked your Thing “Cable Ring”.").wait_for()
    a.get_by_role("link", name="bo commented on “Cable Ring”.").wait_for()
