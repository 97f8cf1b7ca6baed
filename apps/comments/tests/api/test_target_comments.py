"""The comment rows of spec §4.2 (Things), §4.4 (copies) and §4.8 (group topics): GET …/comments,
GET …/root-comments, POST …/comments."""
import pytest

from apps.accounts.tests.factories import UserFactory
from tests.support.api import assert_error, assert_unauthorized
from apps.comments import services
from apps.comments.models import Comment
from apps.comments.tests.factories import CommentFactory, join, make_of
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.groups.models import Group
from apps.groups.tests.factories import GroupTopicFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [c["id"] for c in response.json()]


# --- Things ----------------------------------------------------------------------------------------


def test_thing_comments_lists_every_comment_oldest_first(api):
    thing = ThingFactory()
    top = CommentFactory(thing=thing)
    reply = CommentFactory(parent=top)
    second = CommentFactory(thing=thing)
    CommentFactory()  # another Thing's
    CommentFactory(thing=thing, is_hidden=True)
    response = api.get(f"/things/{thing.pk}/comments")
    assert ids(response) == [top.pk, reply.pk, second.pk]
    assert 'rel="last"' in response["Link"]
    assert ids(api.get(f"/things/{thing.pk}/root-comments")) == [top.pk, second.pk]


def test_thing_comments_list_deleted_placeholders(api):
    thing = ThingFactory()
    top = services.comment_create(user=UserFactory(), target=thing, body="q")
    services.comment_reply(user=UserFactory(), comment=top, body="a")
    services.comment_remove(comment_id=top.pk)
    first = api.get(f"/things/{thing.pk}/comments").json()[0]
    assert (first["id"], first["is_deleted"], first["user"]) == (top.pk, True, None)


@pytest.mark.parametrize("path", ["comments", "root-comments", "threaded-comments"])
def test_thing_comment_reads_follow_the_thing_matrix(api, user, path):
    # A draft's comments for anonymous (401), others (403), a missing Thing (404): test_access_matrix.py.
    assert_error(api.get(f"/things/{ThingFactory(is_hidden=True).pk}/{path}"), 404)
    assert api.get(f"/things/{ThingFactory(creator=user, is_published=False).pk}/{path}").status_code == 200


def test_post_thing_comments(api, user):
    thing = ThingFactory()
    response = api.post(f"/things/{thing.pk}/comments", {"body": "Nice"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["target_type"], body["target_id"], body["parent_id"], body["user"]["id"]) == (
        "thing", thing.pk, None, user.pk
    )
    thing.refresh_from_db()
    assert thing.comment_count == 1
    assert api.get(f"/things/{thing.pk}/").json()["comment_count"] == 1


def test_post_thing_comments_with_a_parent_replies(api):
    thing = ThingFactory()
    parent = CommentFactory(thing=thing)
    payload = {"body": "re", "parent_id": parent.pk}
    response = api.post(f"/things/{thing.pk}/comments/", payload, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["parent_id"] == parent.pk
    null_parent = api.post(f"/things/{thing.pk}/comments", {"body": "top", "parent_id": None}, format="json")
    assert null_parent.json()["parent_id"] is None


def test_post_thing_comments_with_a_parent_elsewhere_is_400(api):
    thing = ThingFactory()
    for parent_id in (CommentFactory().pk, 999999, CommentFactory(thing=thing, is_hidden=True).pk):
        payload = {"body": "re", "parent_id": parent_id}
        body = assert_error(api.post(f"/things/{thing.pk}/comments", payload, format="json"), 400)
        assert "parent_id" in body["errors"]
    payload = {"body": "re", "parent_id": "x"}
    assert_error(api.post(f"/things/{thing.pk}/comments", payload, format="json"), 400)


def test_post_thing_comments_matrix_and_bad_input(api):
    # The matrix on a draft: test_access_matrix.py.
    thing = ThingFactory()
    blank = api.post(f"/things/{thing.pk}/comments", {"body": ""}, format="json")
    assert_error(blank, 400, "VALIDATION_FAILED")
    assert_error(api.post(f"/things/{thing.pk}/comments", b"{bad", content_type="application/json"), 400)
    assert not Comment.objects.exists()


@pytest.mark.parametrize("path", ["comments", "root-comments"])
@pytest.mark.parametrize("rows", [1, 30])
def test_thing_comment_lists_query_count_is_constant(api, rows, path, django_assert_num_queries):
    thing = ThingFactory()
    for _ in range(rows):
        CommentFactory(thing=thing)
    api.get("/users/me/")
    # token; Thing; COUNT; the page with the authors joined
    with django_assert_num_queries(4):
        assert len(api.get(f"/things/{thing.pk}/{path}").json()) == rows


def test_post_thing_comments_query_count(api, django_assert_num_queries):
    thing = ThingFactory()
    api.get("/users/me/")
    # token; Thing; SAVEPOINT; UPDATE comment_count; INSERT comment; INSERT event; the apps subscribed to
    # the creator's thing_commented (webhooks, none here); INSERT notification … ON CONFLICT DO NOTHING;
    # UPDATE the creator's unread count (apps.notifications); RELEASE
    with django_assert_num_queries(10):
        assert api.post(f"/things/{thing.pk}/comments", {"body": "x"}, format="json").status_code == 200


# --- copies ----------------------------------------------------------------------------------------


def test_copy_comments(api, user):
    make = make_of()
    response = api.post(f"/copies/{make.pk}/comments", {"body": "Nice"}, format="json")
    assert response.status_code == 200, response.content
    top = response.json()
    assert (top["target_type"], top["target_id"]) == ("make", make.pk)
    payload = {"body": "re", "parent_id": top["id"]}
    reply = api.post(f"/copies/{make.pk}/comments", payload, format="json").json()
    assert ids(api.get(f"/copies/{make.pk}/comments")) == [top["id"], reply["id"]]
    assert ids(api.get(f"/copies/{make.pk}/root-comments")) == [top["id"]]
    make.refresh_from_db()
    assert make.comment_count == 2


@pytest.mark.parametrize("path", ["comments", "root-comments", "threaded-comments"])
def test_copy_comments_of_an_invisible_copy_are_404(api, user, anon_client, path):
    make = make_of()
    assert_unauthorized(anon_client.get(f"/copies/{make.pk}/{path}"))
    for invisible in (make_of(is_hidden=True), make_of(thing=ThingFactory(is_published=False)),
                      make_of(thing=ThingFactory(is_hidden=True))):
        assert_error(api.get(f"/copies/{invisible.pk}/{path}"), 404)
    assert_error(api.get(f"/copies/999999/{path}"), 404)
    own_draft_make = make_of(thing=ThingFactory(is_published=False, creator=user))
    assert api.get(f"/copies/{own_draft_make.pk}/{path}").status_code == 200


def test_post_copy_comments_on_an_invisible_copy_is_404(api):
    hidden = make_of(is_hidden=True)
    assert_error(api.post(f"/copies/{hidden.pk}/comments", {"body": "x"}, format="json"), 404)
    assert_error(api.post("/copies/999999/comments", {"body": "x"}, format="json"), 404)


@pytest.mark.parametrize("rows", [1, 30])
def test_copy_comments_query_count_is_constant(api, rows, django_assert_num_queries):
    make = make_of()
    for _ in range(rows):
        services.comment_create(user=UserFactory(), target=make, body="x")
    api.get("/users/me/")
    # token; the copy with its Thing; COUNT; the page with the authors joined
    with django_assert_num_queries(4):
        assert len(api.get(f"/copies/{make.pk}/comments").json()) == rows


# --- group topics ----------------------------------------------------------------------------------


def test_topic_comments_are_read_by_everyone_and_written_by_members(api, user):
    topic = GroupTopicFactory()
    assert_error(api.post(f"/group-topics/{topic.pk}/comments", {"body": "x"}, format="json"), 403)
    # 403 comes first, before the bad body's 400
    assert_error(api.post(f"/group-topics/{topic.pk}/comments", {"body": ""}, format="json"), 403)
    join(topic.group, user)
    response = api.post(f"/group-topics/{topic.pk}/comments", {"body": "x"}, format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["target_type"], response.json()["target_url"]) == (
        "group_topic", f"http://testserver/group-topics/{topic.pk}"
    )
    topic.refresh_from_db()
    assert topic.comment_count == 1
    assert ids(api.get(f"/group-topics/{topic.pk}/comments")) == [response.json()["id"]]


def test_topic_root_comments_leave_replies_out_under_either_path(api, user):
    topic = GroupTopicFactory()
    join(topic.group, user)
    top = api.post(f"/group-topics/{topic.pk}/comments", {"body": "first"}, format="json").json()
    reply = api.post(f"/group-topics/{topic.pk}/comments", {"body": "re", "parent_id": top["id"]}, format="json").json()
    later = api.post(f"/group-topics/{topic.pk}/comments", {"body": "second"}, format="json").json()
    assert ids(api.get(f"/group-topics/{topic.pk}/comments")) == [top["id"], reply["id"], later["id"]]
    for path in (f"/group-topics/{topic.pk}/root-comments", f"/grouptopics/{topic.pk}/root-comments"):
        assert ids(api.get(path)) == [top["id"], later["id"]]
        assert ids(api.get(path, {"per_page": 1, "page": 2})) == [later["id"]]


def test_topic_comments_matrix(api, anon_client):
    topic = GroupTopicFactory()
    for path in ("comments", "root-comments", "threaded-comments"):
        assert_unauthorized(anon_client.get(f"/group-topics/{topic.pk}/{path}"))
        assert_error(api.get(f"/group-topics/999999/{path}"), 404)
    assert_error(api.post("/group-topics/999999/comments", {"body": "x"}, format="json"), 404)
    Group.objects.filter(pk=topic.group_id).update(is_hidden=True)
    for path in ("comments", "root-comments"):
        assert_error(api.get(f"/group-topics/{topic.pk}/{path}"), 404)


def test_a_non_member_reads_topic_comments(client_for):
    topic = GroupTopicFactory()
    comment = services.comment_create(user=topic.user, target=topic, body="x")
    assert ids(client_for(UserFactory()).get(f"/group-topics/{topic.pk}/comments")) == [comment.pk]


@pytest.mark.parametrize("path", ["comments", "root-comments"])
@pytest.mark.parametrize("rows", [1, 30])
def test_topic_comments_query_count_is_constant(api, rows, path, django_assert_num_queries):
    topic = GroupTopicFactory()
    for _ in range(rows):
        services.comment_create(user=topic.user, target=topic, body="x")
    api.get("/users/me/")
    # token; the topic with its group; COUNT; the page with the authors joined
    with django_assert_num_queries(4):
        assert len(api.get(f"/group-topics/{topic.pk}/{path}").json()) == rows


def test_the_topic_shows_its_comment_count(api):
    topic = GroupTopicFactory()
    services.comment_create(user=topic.user, target=topic, body="x")
    assert api.get(f"/group-topics/{topic.pk}/").json()["comments"]["count"] == 1


def test_a_comment_counts_as_an_event_until_it_is_deleted(client_for):
    thing = ThingFactory()
    owner_api = client_for(thing.creator)
    comment = services.comment_create(user=UserFactory(), target=thing, body="x")
    assert owner_api.get("/users/me/event-count").json() == {"count": 1}
    services.comment_remove(comment_id=comment.pk)
    assert owner_api.get("/users/me/event-count").json() == {"count": 0}


def test_comment_events_stop_counting_while_what_they_are_on_is_hidden(client_for):
    """Hiding a Thing, copy or group hides its comments with it (docs/decisions.md Comments), so their
    events stop counting for the target's creator too, and come back on unhide."""
    staff = UserFactory(is_staff=True)
    thing = ThingFactory()
    make = make_of(creator=thing.creator)
    topic = GroupTopicFactory(user=thing.creator)
    join(topic.group, thing.creator)
    commenter = UserFactory()
    join(topic.group, commenter)
    for target in (thing, make, topic):
        services.comment_create(user=commenter, target=target, body="x")
    owner_api = client_for(thing.creator)
    assert owner_api.get("/users/me/event-count").json() == {"count": 3}
    for hidden in (thing, topic.group):
        moderation_hide(obj=hidden, reason="Spam.", by=staff)
    # The make's Thing is another, still visible; the make itself is hidden next.
    assert owner_api.get("/users/me/event-count").json() == {"count": 1}
    moderation_hide(obj=make, reason="Spam.", by=staff)
    assert owner_api.get("/users/me/event-count").json() == {"count": 0}
    for hidden in (thing, topic.group, make):
        moderation_unhide(obj=hidden)
    assert owner_api.get("/users/me/event-count").json() == {"count": 3}
