"""GET /things/{id}/threaded-comments, /copies/{id}/threaded-comments, /group-topics/{id}/threaded-comments:
the threaded result of spec §2."""
import pytest

from apps.accounts.tests.factories import UserFactory
from apps.comments import rules, services
from apps.comments.models import Comment
from apps.comments.tests.factories import CommentFactory, make_of
from apps.groups.tests.factories import GroupTopicFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

THREADED_COMMENT_KEYS = {
    "id", "url", "body", "body_html", "user_id", "added", "modified", "parent_id", "target_type", "target_id",
    "target_url", "is_deleted",
}


def threads_of(response) -> dict[str, list[int]]:
    assert response.status_code == 200, response.content
    return {key: [c["id"] for c in comments] for key, comments in response.json()["threads"].items()}


def test_threads_by_parent_id_and_users_by_id(api):
    thing = ThingFactory()
    alice, bob = UserFactory(), UserFactory()
    first = CommentFactory(thing=thing, user=alice)
    second = CommentFactory(thing=thing, user=bob)
    reply = CommentFactory(parent=first, user=bob)
    nested = CommentFactory(parent=reply, user=alice)
    response = api.get(f"/things/{thing.pk}/threaded-comments")
    body = response.json()
    assert set(body) == {"threads", "users", "truncated"} and body["truncated"] is False
    assert threads_of(response) == {
        "": [first.pk, second.pk], str(first.pk): [reply.pk], str(reply.pk): [nested.pk]
    }
    top = body["threads"][""][0]
    assert set(top) == THREADED_COMMENT_KEYS and top["user_id"] == alice.pk and top["parent_id"] is None
    assert set(body["users"]) == {str(alice.pk), str(bob.pk)}
    assert body["users"][str(bob.pk)]["name"] == bob.username


def test_a_target_without_comments_has_an_empty_top_level(api):
    assert api.get(f"/things/{ThingFactory().pk}/threaded-comments").json() == {
        "threads": {"": []}, "users": {}, "truncated": False
    }


def test_placeholders_keep_their_place_and_carry_no_user(api):
    thing = ThingFactory()
    top = services.comment_create(user=UserFactory(), target=thing, body="q")
    reply = services.comment_reply(user=UserFactory(), comment=top, body="a")
    services.comment_remove(comment_id=top.pk)
    body = api.get(f"/things/{thing.pk}/threaded-comments").json()
    placeholder = body["threads"][""][0]
    assert (placeholder["id"], placeholder["is_deleted"], placeholder["user_id"], placeholder["body"]) == (
        top.pk, True, None, ""
    )
    assert [c["id"] for c in body["threads"][str(top.pk)]] == [reply.pk]
    assert set(body["users"]) == {str(reply.user_id)}


def test_a_hidden_comment_takes_its_replies_out_of_the_threads(api, client_for):
    thing = ThingFactory()
    shown = CommentFactory(thing=thing)
    hidden = CommentFactory(thing=thing, is_hidden=True)
    under_hidden = CommentFactory(parent=hidden)
    CommentFactory(parent=under_hidden)
    assert threads_of(api.get(f"/things/{thing.pk}/threaded-comments")) == {"": [shown.pk]}
    staff = client_for(UserFactory(is_staff=True))
    assert threads_of(staff.get(f"/things/{thing.pk}/threaded-comments"))[""] == [shown.pk, hidden.pk]


def test_a_placeholder_whose_replies_are_all_hidden_is_left_out(api):
    thing = ThingFactory()
    top = services.comment_create(user=UserFactory(), target=thing, body="q")
    reply = services.comment_reply(user=UserFactory(), comment=top, body="a")
    services.comment_remove(comment_id=top.pk)
    type(reply).objects.filter(pk=reply.pk).update(is_hidden=True)
    assert threads_of(api.get(f"/things/{thing.pk}/threaded-comments")) == {"": []}


def test_the_threaded_result_is_capped_at_the_oldest_comments(api, monkeypatch):
    thing = ThingFactory()
    comments = [CommentFactory(thing=thing) for _ in range(4)]
    monkeypatch.setattr(rules, "THREADED_MAX_COMMENTS", 3)
    body = api.get(f"/things/{thing.pk}/threaded-comments").json()
    assert [c["id"] for c in body["threads"][""]] == [c.pk for c in comments[:3]]
    assert body["truncated"] is True


def test_copy_and_topic_threads(api):
    make, topic = make_of(), GroupTopicFactory()
    on_make = services.comment_create(user=UserFactory(), target=make, body="m")
    on_topic = services.comment_create(user=topic.user, target=topic, body="t")
    reply = services.comment_reply(user=topic.user, comment=on_topic, body="r")
    assert threads_of(api.get(f"/copies/{make.pk}/threaded-comments")) == {"": [on_make.pk]}
    assert threads_of(api.get(f"/group-topics/{topic.pk}/threaded-comments")) == {
        "": [on_topic.pk], str(on_topic.pk): [reply.pk]
    }


def _three_levels(thing, total: int) -> None:
    """`total` comments on `thing` in 3 levels (top, reply, reply to reply), by many authors."""
    authors = UserFactory.create_batch(min(total, 20))
    made = 0
    while made < total:
        top = CommentFactory(thing=thing, user=authors[made % len(authors)])
        made += 1
        for _ in range(2):
            if made >= total:
                break
            reply = CommentFactory(parent=top, user=authors[made % len(authors)])
            made += 1
            if made < total:
                CommentFactory(parent=reply, user=authors[made % len(authors)])
                made += 1


@pytest.mark.parametrize("total", [3, 200])
def test_threaded_query_count_does_not_grow_with_the_thread(api, total, django_assert_num_queries):
    thing = ThingFactory()
    _three_levels(thing, total)
    api.get("/users/me/")
    # token; Thing; every comment with its author joined
    with django_assert_num_queries(3):
        body = api.get(f"/things/{thing.pk}/threaded-comments").json()
    assert sum(len(thread) for thread in body["threads"].values()) == total
    assert Comment.objects.filter(thing=thing, depth=2).exists() == (total >= 3)


@pytest.mark.caches_off  # counts the token's lookup on each request
@pytest.mark.parametrize("rows", [1, 30])
def test_copy_and_topic_threaded_query_count_is_constant(api, rows, django_assert_num_queries):
    make, topic = make_of(), GroupTopicFactory()
    for _ in range(rows):
        services.comment_create(user=UserFactory(), target=make, body="x")
        services.comment_create(user=topic.user, target=topic, body="x")
    api.get("/users/me/")
    with django_assert_num_queries(3):  # token; the copy with its Thing; the comments with their authors
        assert len(api.get(f"/copies/{make.pk}/threaded-comments").json()["threads"][""]) == rows
    with django_assert_num_queries(3):  # token; the topic with its group; the comments with their authors
        assert len(api.get(f"/group-topics/{topic.pk}/threaded-comments").json()["threads"][""]) == rows
