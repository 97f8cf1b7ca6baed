"""spec §4.6: GET/PATCH/DELETE /comments/{id}/, GET /comments/{parentId}/replies, POST /comments/,
POST /comments/{id}/reply."""
import pytest

from apps.accounts.tests.factories import UserFactory
from tests.support.api import assert_error
from apps.comments import services
from apps.comments.models import BODY_MAX_LENGTH, Comment
from apps.comments.tests.factories import CommentFactory, join, make_of
from apps.core.domain.moderation import moderation_hide
from apps.groups.tests.factories import GroupTopicFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

COMMENT_KEYS = {
    "id", "url", "body", "body_html", "user", "added", "modified", "parent_id", "target_type", "target_id",
    "target_url", "is_deleted",
}
USER_SUMMARY_KEYS = {"id", "name", "first_name", "last_name", "url", "public_url", "thumbnail"}


def count_of(thing) -> int:
    return Thing.objects.values_list("comment_count", flat=True).get(pk=thing.pk)


# --- POST /comments/ -------------------------------------------------------------------------------


def test_post_comments_on_a_thing(api, user):
    thing = ThingFactory()
    payload = {"body": "Lovely **print**", "target_type": "thing", "target_id": thing.pk}
    response = api.post("/comments/", payload, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == COMMENT_KEYS
    comment = Comment.objects.get()
    assert body["id"] == comment.pk and body["url"] == f"http://testserver/comments/{comment.pk}"
    assert (body["body"], body["body_html"]) == ("Lovely **print**", "<p>Lovely <strong>print</strong></p>")
    assert (body["target_type"], body["target_id"], body["parent_id"], body["is_deleted"]) == (
        "thing", thing.pk, None, False
    )
    assert body["target_url"] == f"http://testserver/things/{thing.pk}"
    assert set(body["user"]) == USER_SUMMARY_KEYS and body["user"]["id"] == user.pk
    assert body["added"].endswith("+00:00")
    assert count_of(thing) == 1


def test_post_comments_on_a_make(api):
    make = make_of()
    payload = {"body": "Nice", "target_type": "make", "target_id": make.pk}
    response = api.post("/comments/", payload, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["target_url"] == f"http://testserver/copies/{make.pk}"
    make.refresh_from_db()
    assert make.comment_count == 1


def test_post_comments_accepts_a_form_body_with_string_ids(api):
    thing = ThingFactory()
    response = api.post("/comments/", {"body": "Nice", "target_type": "thing", "target_id": str(thing.pk)})
    assert response.status_code == 200, response.content


@pytest.mark.parametrize("payload, field", [
    ({"target_type": "thing"}, "body"),
    ({"body": "", "target_type": "thing"}, "body"),
    ({"body": "   \n ", "target_type": "thing"}, "body"),
    ({"body": 42, "target_type": "thing"}, "body"),
    ({"body": "x" * (BODY_MAX_LENGTH + 1), "target_type": "thing"}, "body"),
    ({"body": "x", "target_type": "user"}, "target_type"),
    ({"body": "x", "target_type": "thïng"}, "target_type"),
    ({"body": "x"}, "target_type"),
    ({"body": "x", "target_type": "thing", "target_id": "abc"}, "target_id"),
    ({"body": "x", "target_type": "thing", "target_id": True}, "target_id"),
    ({"body": "x", "target_type": "thing", "target_id": 0}, "target_id"),
    ({"body": "x", "target_type": "thing", "target_id": 2**63}, "target_id"),
    ({"body": "x", "target_type": "thing", "target_id": 1.5}, "target_id"),
])
def test_post_comments_bad_input_is_400(api, payload, field):
    thing = ThingFactory()
    payload = {"target_id": thing.pk, **payload}
    body = assert_error(api.post("/comments/", payload, format="json"), 400, "VALIDATION_FAILED")
    assert field in body["errors"]
    assert not Comment.objects.exists()


def test_the_longest_body_is_accepted(api):
    thing = ThingFactory()
    payload = {"body": "x" * BODY_MAX_LENGTH, "target_type": "thing", "target_id": thing.pk}
    assert api.post("/comments/", payload, format="json").status_code == 200


def test_post_comments_on_a_missing_or_invisible_target_is_404(api, user):
    draft = ThingFactory(is_published=False)
    hidden = ThingFactory(is_hidden=True)
    draft_make = make_of(thing=draft)
    hidden_make = make_of(is_hidden=True)
    for target_type, target_id in [
        ("thing", 999999), ("thing", draft.pk), ("thing", hidden.pk), ("make", 999999),
        ("make", draft_make.pk), ("make", hidden_make.pk), ("group_topic", 999999),
    ]:
        payload = {"body": "x", "target_type": target_type, "target_id": target_id}
        assert_error(api.post("/comments/", payload, format="json"), 404)
    assert not Comment.objects.exists()


def test_post_comments_on_ones_own_draft_is_fine(api, user):
    draft = ThingFactory(creator=user, is_published=False)
    payload = {"body": "note to self", "target_type": "thing", "target_id": draft.pk}
    assert api.post("/comments/", payload, format="json").status_code == 200


def test_post_comments_on_a_topic_is_for_members(api, user):
    topic = GroupTopicFactory()
    payload = {"body": "x", "target_type": "group_topic", "target_id": topic.pk}
    assert_error(api.post("/comments/", payload, format="json"), 403)
    join(topic.group, user)
    assert api.post("/comments/", payload, format="json").status_code == 200
    # The live service's name of the type, `grouptopic`, in either wire version.
    live = {**payload, "target_type": "grouptopic"}
    assert api.post("/comments/", live, format="json").json()["target_type"] == "group_topic"
    answer = api.post("/comments/", live, format="json", HTTP_THINGYARD_VERSION="thingiverse").json()
    assert answer["target_type"] == "grouptopic"
    assert_error(api.post("/comments/", {**payload, "target_type": ["thing"]}, format="json"), 400)


def test_post_comments_renders_markdown_safely(api):
    thing = ThingFactory()
    raw = 'hi <script>alert(1)</script><img src=x onerror="alert(2)"> [x](javascript:alert(3))'
    body = api.post("/comments/", {"body": raw, "target_type": "thing", "target_id": thing.pk},
                    format="json").json()
    assert body["body"] == raw  # the Markdown is kept as written
    for bad in ("<script", "onerror", "javascript:", "alert"):
        assert bad not in body["body_html"]


# --- GET /comments/{id}/ ---------------------------------------------------------------------------


def test_get_a_comment(api):
    comment = CommentFactory()
    response = api.get(f"/comments/{comment.pk}/")
    assert response.status_code == 200
    assert set(response.json()) == COMMENT_KEYS and response.json()["id"] == comment.pk
    assert api.get(f"/comments/{comment.pk}").status_code == 200


def test_get_a_comment_matrix(api, user):
    # Anonymous and a missing id: test_access_matrix.py.
    assert_error(api.get(f"/comments/{2**63}/"), 404)
    on_draft = CommentFactory(thing=ThingFactory(is_published=False))
    assert_error(api.get(f"/comments/{on_draft.pk}/"), 404)
    own_draft = CommentFactory(thing=ThingFactory(is_published=False, creator=user))
    assert api.get(f"/comments/{own_draft.pk}/").status_code == 200
    on_hidden_thing = CommentFactory(thing=ThingFactory(is_hidden=True))
    assert_error(api.get(f"/comments/{on_hidden_thing.pk}/"), 404)


def test_a_hidden_comment_vanishes_for_everyone_but_staff(api, client_for, user):
    comment = CommentFactory(user=user)
    moderation_hide(obj=comment, reason="rude", by=UserFactory(is_staff=True))
    assert_error(api.get(f"/comments/{comment.pk}/"), 404)  # its own author included
    assert_error(api.patch(f"/comments/{comment.pk}/", {"body": "x"}, format="json"), 404)
    assert_error(api.post(f"/comments/{comment.pk}/reply", {"body": "x"}, format="json"), 404)
    assert client_for(UserFactory(is_staff=True)).get(f"/comments/{comment.pk}/").status_code == 200


def test_get_a_comment_on_a_hidden_make_or_group_is_404(api):
    on_make = services.comment_create(user=UserFactory(), target=make_of(is_hidden=True), body="x")
    assert_error(api.get(f"/comments/{on_make.pk}/"), 404)
    topic = GroupTopicFactory()
    on_topic = services.comment_create(user=topic.user, target=topic, body="x")
    assert api.get(f"/comments/{on_topic.pk}/").status_code == 200  # every user reads topics
    type(topic.group).objects.filter(pk=topic.group_id).update(is_hidden=True)
    assert_error(api.get(f"/comments/{on_topic.pk}/"), 404)


def test_get_comment_query_count(api, django_assert_num_queries):
    comment = CommentFactory()
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; the comment with its author and target joined
    with django_assert_num_queries(2):
        assert api.get(f"/comments/{comment.pk}/").status_code == 200


# --- PATCH /comments/{id}/ -------------------------------------------------------------------------


def test_patch_by_the_author(api, user):
    comment = CommentFactory(user=user, body="old")
    response = api.patch(f"/comments/{comment.pk}/", {"body": "*new*"}, format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["body"], response.json()["body_html"]) == ("*new*", "<p><em>new</em></p>")
    comment.refresh_from_db()
    assert comment.body == "*new*" and comment.modified > comment.added


def test_patch_matrix(api, user):
    # Anonymous, another user and a missing id: test_access_matrix.py. Here: the Thing's owner is not
    # the author either.
    theirs = CommentFactory(thing=ThingFactory(creator=user))  # even on the caller's own Thing
    assert_error(api.patch(f"/comments/{theirs.pk}/", {"body": "x"}, format="json"), 403)
    # 403 comes before 400: nobody learns input rules on someone else's comment.
    assert_error(api.patch(f"/comments/{theirs.pk}/", {"body": ""}, format="json"), 403)


@pytest.mark.parametrize("payload", [{}, {"body": ""}, {"body": None}, {"body": ["x"]},
                                     {"body": "x" * (BODY_MAX_LENGTH + 1)}])
def test_patch_bad_body_is_400(api, user, payload):
    comment = CommentFactory(user=user)
    response = api.patch(f"/comments/{comment.pk}/", payload, format="json")
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert "body" in body["errors"]


def test_patch_a_deleted_placeholder_is_403(api, user):
    thing = ThingFactory()
    parent = services.comment_create(user=user, target=thing, body="q")
    services.comment_reply(user=UserFactory(), comment=parent, body="a")
    services.comment_remove(comment_id=parent.pk)
    assert_error(api.patch(f"/comments/{parent.pk}/", {"body": "back"}, format="json"), 403)


# --- DELETE /comments/{id}/ ------------------------------------------------------------------------


def test_delete_by_the_author_removes_it(api, user):
    thing = ThingFactory()
    comment = services.comment_create(user=user, target=thing, body="x")
    response = api.delete(f"/comments/{comment.pk}/")
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert not Comment.objects.exists() and count_of(thing) == 0
    assert_error(api.delete(f"/comments/{comment.pk}/"), 404)


def test_delete_with_replies_keeps_a_placeholder(api, user, client_for):
    thing = ThingFactory()
    parent = services.comment_create(user=user, target=thing, body="q")
    reply = services.comment_reply(user=UserFactory(), comment=parent, body="a")
    assert api.delete(f"/comments/{parent.pk}/").json() == {"ok": True}
    body = api.get(f"/comments/{parent.pk}/").json()
    assert (body["is_deleted"], body["body"], body["body_html"], body["user"]) == (True, "", "", None)
    assert count_of(thing) == 1
    assert [c["id"] for c in api.get(f"/comments/{parent.pk}/replies").json()] == [reply.pk]
    reply_to_placeholder = api.post(f"/comments/{parent.pk}/reply", {"body": "x"}, format="json")
    assert_error(reply_to_placeholder, 400, "RULE_VIOLATION")
    # The placeholder has no author any more; for the Thing's owner, deleting it again is a no-op.
    assert_error(api.delete(f"/comments/{parent.pk}/"), 403)
    assert client_for(thing.creator).delete(f"/comments/{parent.pk}/").json() == {"ok": True}
    assert Comment.objects.filter(pk=parent.pk, is_deleted=True).exists() and count_of(thing) == 1


def test_the_things_owner_deletes_any_comment_on_it(client_for, user):
    thing = ThingFactory(creator=user)
    comment = services.comment_create(user=UserFactory(), target=thing, body="spam")
    assert client_for(user).delete(f"/comments/{comment.pk}/").json() == {"ok": True}
    assert not Comment.objects.exists()


def test_a_make_comment_is_deleted_by_the_make_or_thing_creator_only(client_for):
    make = make_of()
    for deleter in (make.creator, make.thing.creator):
        comment = services.comment_create(user=UserFactory(), target=make, body="x")
        assert client_for(deleter).delete(f"/comments/{comment.pk}/").json() == {"ok": True}
    comment = services.comment_create(user=UserFactory(), target=make, body="x")
    assert_error(client_for(UserFactory()).delete(f"/comments/{comment.pk}/"), 403)


def test_a_topic_comment_is_deleted_by_its_author_or_the_group_owner(client_for):
    topic = GroupTopicFactory()  # the group owner wrote the topic; another member comments
    member = UserFactory()
    join(topic.group, member)
    comment = services.comment_create(user=member, target=topic, body="x")
    outsider_member = UserFactory()
    join(topic.group, outsider_member)
    assert_error(client_for(outsider_member).delete(f"/comments/{comment.pk}/"), 403)
    assert client_for(topic.group.creator).delete(f"/comments/{comment.pk}/").json() == {"ok": True}


def test_replies_lists_the_direct_children_oldest_first(api):
    parent = CommentFactory()
    first, second = CommentFactory(parent=parent), CommentFactory(parent=parent)
    CommentFactory(parent=first)  # a grandchild is not a direct reply
    CommentFactory(thing=parent.thing)  # nor is another top-level comment
    response = api.get(f"/comments/{parent.pk}/replies")
    assert response.status_code == 200
    assert [c["id"] for c in response.json()] == [first.pk, second.pk]
    assert all(c["parent_id"] == parent.pk for c in response.json())
    assert 'rel="first"' in response["Link"]


def test_replies_leave_out_hidden_ones_and_follow_the_matrix(api):
    # Anonymous and a missing id: test_access_matrix.py.
    parent = CommentFactory()
    shown, hidden = CommentFactory(parent=parent), CommentFactory(parent=parent, is_hidden=True)
    assert [c["id"] for c in api.get(f"/comments/{parent.pk}/replies").json()] == [shown.pk]
    assert_error(api.get(f"/comments/{hidden.pk}/replies"), 404)


def test_replies_are_paginated(api):
    parent = CommentFactory()
    for _ in range(3):
        CommentFactory(parent=parent)
    response = api.get(f"/comments/{parent.pk}/replies", {"per_page": 2, "page": 2})
    assert len(response.json()) == 1 and 'rel="prev"' in response["Link"]
    assert_error(api.get(f"/comments/{parent.pk}/replies", {"page": "x"}), 400)


@pytest.mark.parametrize("rows", [1, 30])
def test_replies_query_count_is_constant(api, rows, django_assert_num_queries):
    parent = CommentFactory()
    for _ in range(rows):
        CommentFactory(parent=parent)
    api.get("/users/me/")
    # token; the parent (with its target); COUNT; the page with the authors joined
    with django_assert_num_queries(4):
        assert len(api.get(f"/comments/{parent.pk}/replies").json()) == rows


# --- POST /comments/{id}/reply ---------------------------------------------------------------------


def test_reply(api, user):
    parent = services.comment_create(user=UserFactory(), target=ThingFactory(), body="q")
    response = api.post(f"/comments/{parent.pk}/reply", {"body": "a"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == COMMENT_KEYS
    assert (body["parent_id"], body["target_type"]) == (parent.pk, "thing")
    assert body["target_id"] == parent.thing_id
    assert body["user"]["id"] == user.pk
    assert count_of(parent.thing) == 2


def test_reply_matrix_and_bad_input(api):
    # Anonymous and a missing id: test_access_matrix.py.
    parent = CommentFactory()
    on_draft = CommentFactory(thing=ThingFactory(is_published=False))
    assert_error(api.post(f"/comments/{on_draft.pk}/reply", {"body": "a"}, format="json"), 404)
    body = assert_error(api.post(f"/comments/{parent.pk}/reply", {"body": " "}, format="json"), 400)
    assert "body" in body["errors"]
    assert Comment.objects.count() == 2


def test_reply_on_a_topic_comment_is_for_members(api, user):
    topic = GroupTopicFactory()
    comment = services.comment_create(user=topic.user, target=topic, body="q")
    # 403 before 400
    assert_error(api.post(f"/comments/{comment.pk}/reply", {"body": ""}, format="json"), 403)
    join(topic.group, user)
    assert api.post(f"/comments/{comment.pk}/reply", {"body": "a"}, format="json").status_code == 200
