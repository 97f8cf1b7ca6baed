"""The social pages of issue 26: notifications and the bell, following makers and groups, editing and
deleting one's own comment, likes counted in place, limits stated and never cut, makes called "Make"."""
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import Follow
from apps.accounts.tests.factories import FollowFactory, UserFactory
from apps.comments.models import Comment
from apps.comments.tests.factories import CommentFactory, make_of
from tests.support.api import assert_error
from apps.groups.models import GroupFollow
from apps.groups.tests.factories import GroupFactory
from apps.notifications import services
from apps.notifications.models import Notification
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


def signed_in(user):
    client = Client()
    client.force_login(user)
    return client


def notify(user, n=1, actor=None):
    actor = actor or UserFactory()
    for i in range(n):
        services.notification_send(recipient=user, actor=actor, kind="like", key=f"like:{actor.pk}:{i}",
                                   subject=f"Thing {i}", url=f"/thing:{i + 1}")


# --- /notifications and the bell ---------------------------------------------------------------------


def test_the_notifications_page_needs_a_login(client):
    response = client.get("/notifications")
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=/notifications")


def test_the_bell_names_the_unread_count_and_the_page_lists_them(user):
    notify(user, 2, actor=UserFactory(username="fan"))
    html = signed_in(user).get("/notifications").content.decode()
    # The bell's accessible name is its content: "Notifications, 2 unread".
    assert '<span class="visually-hidden">Notifications, </span><span class="bell-count" data-bell-count>2</span>' in html
    assert "fan liked your Thing “Thing 1”." in html and 'href="/thing:2"' in html
    assert "Mark all as read" in html


@pytest.mark.parametrize("rows", [1, 30])
def test_the_notifications_page_reads_a_bounded_number_of_queries(user, rows, django_assert_max_num_queries):
    notify(user, rows)
    client = signed_in(user)
    client.get("/notifications")
    # session; user; count; the page of notifications with their actors
    with django_assert_max_num_queries(4):
        assert client.get("/notifications").status_code == 200


def test_marking_one_read_answers_the_new_count_and_others_cannot(user):
    notify(user, 2)
    first = Notification.objects.filter(recipient=user).earliest("pk")
    response = signed_in(user).post(f"/notifications/{first.pk}/read", **JSON)
    assert response.status_code == 200 and response.json()["unread"] == 1
    stranger = signed_in(UserFactory())
    assert stranger.post(f"/notifications/{first.pk}/read").status_code == 404
    anonymous: Any = Client()
    assert anonymous.post(f"/notifications/{first.pk}/read", **JSON).status_code == 401


def test_mark_all_read_without_javascript_goes_back_to_the_list(user):
    notify(user, 3)
    response = signed_in(user).post("/notifications/read-all")
    assert response.status_code == 302 and response["Location"] == "/notifications"
    user.refresh_from_db()
    assert user.notifications_unread == 0
    assert not Notification.objects.filter(recipient=user, read_at__isnull=True).exists()


def test_the_account_page_sets_the_email_choice(user):
    client = signed_in(user)
    assert 'name="notify_email" value="daily" checked' in client.get("/account/").content.decode()
    response = client.post("/account/notifications", {"notify_email": "each"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.notify_email == "each"
    client.post("/account/notifications", {"notify_email": "hourly"})
    user.refresh_from_db()
    assert user.notify_email == "each"


# --- follow ------------------------------------------------------------------------------------------


def test_following_a_maker_from_the_page_and_back(user):
    maker = UserFactory(username="maker")
    client = signed_in(user)
    page = client.get("/@maker").content.decode()
    assert 'action="/@maker/follow"' in page and "<span class=\"visually-hidden\"> maker</span>" in page
    body = client.post("/@maker/follow", {"action": "follow"}, **JSON).json()
    assert body["following"] is True and body["count"] == 1
    assert Follow.objects.filter(follower=user, followed=maker).exists()
    response = client.post("/@maker/follow", {"action": "unfollow"})  # without JavaScript
    assert response.status_code == 302 and response["Location"] == "/@maker"
    assert not Follow.objects.exists()


def test_following_oneself_is_refused_in_words_and_visitors_are_sent_to_log_in(user):
    response = signed_in(user).post(f"/@{user.username}/follow", **JSON)
    assert response.status_code == 400 and response.json()["error"] == "You cannot follow yourself."
    assert Client().post(f"/@{user.username}/follow").status_code == 302
    assert signed_in(user).post("/@nobody-here/follow").status_code == 404


def test_the_api_follow_and_the_page_share_one_state(user, api):
    maker = UserFactory(username="maker2")
    assert api.post("/users/maker2/followers").status_code == 200
    html = signed_in(user).get("/@maker2").content.decode()
    assert 'data-count="follow-user-maker2">1<' in html
    assert Follow.objects.filter(followed=maker).count() == 1


def test_following_a_group_and_the_count(user):
    group = GroupFactory(slug="printers")
    GroupFollow.objects.create(group=group, user=UserFactory())
    client = signed_in(user)
    body = client.post("/groups/printers/follow", {"action": "follow"}, **JSON).json()
    assert body == {"ok": True, "message": f"You follow {group.name}.", "following": True, "count": 2}
    client.post("/groups/printers/follow", {"action": "follow"}, **JSON)  # again: no-op
    assert GroupFollow.objects.filter(group=group).count() == 2
    assert 'data-count="follow-group-printers">2<' in client.get("/groups/printers").content.decode()
    assert client.post("/groups/printers/follow", {"action": "unfollow"}, **JSON).json()["count"] == 1


def _queries(client, path) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def test_the_makers_page_counts_followers_in_the_same_queries_for_1_and_30(user):
    one, many = UserFactory(username="one"), UserFactory(username="many")
    FollowFactory(followed=one)
    for _ in range(30):
        FollowFactory(followed=many)
    client = signed_in(user)
    client.get("/@one")
    client.get("/@many")
    assert _queries(client, "/@one") == _queries(client, "/@many")
    assert 'data-count="follow-user-many">30<' in client.get("/@many").content.decode()


# --- comments: edit and delete -----------------------------------------------------------------------


def test_the_author_edits_a_comment_and_it_is_marked_edited(user):
    thing = ThingFactory()
    comment = CommentFactory(thing=thing, user=user, body="Frist")
    client = signed_in(user)
    page = client.get(f"/thing:{thing.pk}").content.decode()
    assert f'action="/comment:{comment.pk}/edit"' in page
    response = client.post(f"/comment:{comment.pk}/edit", {"body": "First!"})
    assert response.status_code == 302 and response["Location"] == f"/thing:{thing.pk}#comment-{comment.pk}"
    comment.refresh_from_db()
    assert comment.body == "First!" and comment.edited_at is not None
    assert "(edited <time" in client.get(f"/thing:{thing.pk}").content.decode()


def test_only_the_author_edits_and_an_empty_edit_is_refused(user):
    comment = CommentFactory(thing=ThingFactory(), user=user, body="Mine")
    other = signed_in(UserFactory())
    assert f'/comment:{comment.pk}/edit' not in other.get(f"/thing:{comment.thing_id}").content.decode()
    assert other.post(f"/comment:{comment.pk}/edit", {"body": "Hijack"}, **JSON).status_code == 403
    response = signed_in(user).post(f"/comment:{comment.pk}/edit", {"body": "  "}, **JSON)
    assert response.status_code == 400 and response.json()["error"] == "Write something first."
    comment.refresh_from_db()
    assert comment.body == "Mine" and comment.edited_at is None
    assert signed_in(user).post("/comment:999999/edit", {"body": "x"}).status_code == 404


def test_the_author_deletes_a_comment_and_a_stranger_cannot(user):
    thing = ThingFactory()
    comment = CommentFactory(thing=thing, user=user, body="Oops")
    Thing.objects.filter(pk=thing.pk).update(comment_count=1)
    assert signed_in(UserFactory()).post(f"/comment:{comment.pk}/delete", **JSON).status_code == 403
    response = signed_in(user).post(f"/comment:{comment.pk}/delete")
    assert response.status_code == 302 and response["Location"] == f"/thing:{thing.pk}#comments"
    assert not Comment.objects.filter(pk=comment.pk).exists()


def test_an_over_long_comment_is_refused_saying_by_how_much(user):
    thing = ThingFactory()
    response = signed_in(user).post(f"/thing:{thing.pk}/comments", {"body": "x" * 10001}, **JSON)
    assert response.status_code == 400
    assert response.json()["error"].startswith("This is 10001 characters long; the limit is 10000.")
    assert not Comment.objects.exists()


# --- limits, likes, names ----------------------------------------------------------------------------


def test_a_description_over_the_limit_is_refused_on_the_site_not_cut(user):
    thing = ThingFactory(creator=user, description="Short.")
    client = signed_in(user)
    form = client.get(f"/thing:{thing.pk}/edit").content.decode()
    assert 'data-max-length="50000"' in form and 'maxlength="50000"' not in form
    assert "Up to 50,000 characters." in form
    response = client.post(f"/thing:{thing.pk}/edit", {
        "name": thing.name, "description": "d" * 50001, "license": "cc-sa", "category": "", "tags": "",
    })
    assert response.status_code == 400
    assert "This is 50001 characters long; the limit is 50000." in response.content.decode()
    thing.refresh_from_db()
    assert thing.description == "Short."


def test_a_description_over_the_limit_is_a_400_on_the_api(api, user):
    thing = ThingFactory(creator=user, description="Short.")
    body = assert_error(api.patch(f"/things/{thing.pk}/", {"description": "d" * 50001}, format="json"), 400)
    assert "50000" in str(body)
    thing.refresh_from_db()
    assert thing.description == "Short."


def test_liking_in_place_answers_the_new_count_for_every_counter_on_the_page(user):
    thing = ThingFactory()
    client = signed_in(user)
    page = client.get(f"/thing:{thing.pk}").content.decode()
    assert f'data-count-key="thing-likes-{thing.pk}"' in page and f'data-count="thing-likes-{thing.pk}"' in page
    body = client.post(f"/thing:{thing.pk}/like", {"action": "like"}, **JSON).json()
    assert body["is_liked"] is True and body["like_count"] == 1


def test_a_make_is_called_a_make_on_its_page(client):
    make = make_of(ThingFactory(name="Cube"))
    html = client.get(f"/make:{make.pk}").content.decode()
    assert "Make of <a" in html and "Copy of" not in html


def test_moderators_read_notifications_in_the_admin_and_cannot_write_them(user):
    notify(user, 2, actor=UserFactory(username="liker"))
    moderator = UserFactory(is_staff=True, is_superuser=True)
    client = signed_in(moderator)
    page = client.get("/admin/notifications/notification/?q=liker")
    assert page.status_code == 200 and page.content.decode().count("liker") >= 2
    assert client.get("/admin/notifications/notification/add/").status_code == 403
