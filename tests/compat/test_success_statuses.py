"""docs/decisions.md, status codes of success (compat): every successful call answers 200. Creates answer 200
with the new object, the spec's "no body" operations 200 with an empty body; the only other success
statuses are the download's redirect, the object store's 303 and package-url's 202.

One policy in the API's response path (apps.core.pipeline.statuses) makes it so; these pin it on the wire for
every create and every "no body" delete, and make sure the tables below list all of them: a new POST
or DELETE must be sorted into one of them.
"""
import pytest
from rest_framework.test import APIClient

from apps.comments.tests.factories import CommentFactory
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.makes.tests.factories import MakeFactory
from apps.thingcollections.tests.factories import CollectionFactory
from apps.things.tests.factories import ThingFactory
from tests.compat.helpers import api_operations

pytestmark = pytest.mark.django_db


# Each create: (path, body) from the world the `world` fixture builds. The object it answers has an id.
CREATES = {
    ("POST", "/things/"): lambda w: ("/things/", {"name": "Hook", "category": "other"}),
    ("POST", "/collections/"): lambda w: ("/collections/", {"name": "Hooks"}),
    ("POST", "/comments/"): lambda w: ("/comments/", {"body": "Hi", "target_type": "thing",
                                                      "target_id": w["thing"].pk}),
    ("POST", "/comments/{comment_id}/reply"): lambda w: (f"/comments/{w['comment'].pk}/reply", {"body": "Yes"}),
    ("POST", "/things/{thing_id}/comments"): lambda w: (f"/things/{w['thing'].pk}/comments", {"body": "Hi"}),
    ("POST", "/copies/{copy_id}/comments"): lambda w: (f"/copies/{w['make'].pk}/comments", {"body": "Hi"}),
    ("POST", "/group-topics/{topic_id}/comments"): lambda w: (f"/group-topics/{w['topic'].pk}/comments",
                                                               {"body": "Hi"}),
    ("POST", "/grouptopics/{topic_id}/comments"): lambda w: (f"/grouptopics/{w['topic'].pk}/comments",
                                                              {"body": "Hi"}),
    ("POST", "/groups/"): lambda w: ("/groups/", {"name": "Hookers", "description": "Hooks.", "slug": "hooks"}),
    ("POST", "/groups/{group_id}/group-topics"): lambda w: (f"/groups/{w['group'].pk}/group-topics",
                                                             {"name": "Hooks?", "body": "Which?"}),
}
# Each "no body" delete of the spec (§4.1, §4.4, §4.5): the path, and how to see it happened.
NO_BODY_DELETES = {
    ("DELETE", "/users/{username}/"): lambda w: "/users/me/",
    ("DELETE", "/collections/{collection_id}/"): lambda w: f"/collections/{w['collection'].pk}/",
    ("DELETE", "/copies/{copy_id}/"): lambda w: f"/copies/{w['own_make'].pk}/",
}
# Every other POST and DELETE answers a body that is not a new object (ok, a state, an upload
# descriptor, a summary), with 200 too; listed so that a new create cannot slip past the tables.
OTHER_POSTS_AND_DELETES = {
    "POST /collections/{collection_id}/thing/{thing_id}", "DELETE /collections/{collection_id}/thing/{thing_id}",
    "DELETE /comments/{comment_id}/", "POST /copies/{copy_id}/images", "DELETE /copies/{copy_id}/images/{image_id}",
    "POST /copies/{copy_id}/likes", "DELETE /copies/{copy_id}/likes", "POST /files/{upload_id}/finalize",
    "POST /group-topics/{topic_id}/pin", "DELETE /group-topics/{topic_id}/pin",
    "POST /grouptopics/{topic_id}/pin", "DELETE /grouptopics/{topic_id}/pin",
    "POST /groups/{group_id}/image", "POST /groups/{group_id}/members",
    "DELETE /groups/{group_id}/members", "DELETE /groups/{group_id}/members/{user_id}",
    "POST /groups/{group_id}/things/{thing_id}", "DELETE /groups/{group_id}/things/{thing_id}",
    "DELETE /things/{thing_id}/", "POST /things/{thing_id}/copies", "POST /things/{thing_id}/files",
    "DELETE /things/{thing_id}/files/{file_id}", "DELETE /things/{thing_id}/images/{image_id}",
    "POST /things/{thing_id}/likes", "DELETE /things/{thing_id}/likes", "POST /things/{thing_id}/publish",
    "POST /things/{thing_id}/toggle-watch", "POST /users/{username}/avatar-image",
    "POST /users/{username}/cover-image", "POST /users/{username}/followers",
    "DELETE /users/{username}/followers", "POST /users/{username}/verify-account",
}


@pytest.fixture
def world(user, application):
    other_thing = ThingFactory()
    group = GroupFactory(creator=user)
    return {
        "thing": other_thing,
        "comment": CommentFactory(thing=other_thing),
        "make": MakeFactory(thing=other_thing),
        "own_make": MakeFactory(creator=user),
        "group": group,
        "topic": GroupTopicFactory(group=group),
        "collection": CollectionFactory(creator=user, created_by_app=application),  # spec §4.5: this app's
    }


def _key(method, path):
    return f"{method} {path}"


def test_the_tables_sort_every_post_and_delete_of_the_api():
    listed = {_key(*k) for k in CREATES} | {_key(*k) for k in NO_BODY_DELETES} | OTHER_POSTS_AND_DELETES
    found = {_key(method, path) for method, path in api_operations() if method in ("POST", "DELETE")}
    assert found == listed


@pytest.mark.parametrize("operation", list(CREATES), ids=lambda op: _key(*op))
def test_a_create_answers_200_with_the_new_object(api, world, operation):
    path, body = CREATES[operation](world)
    response = api.post(path, body, format="json")
    assert response.status_code == 200, response.content
    assert response.reason_phrase == "OK"
    assert isinstance(response.json()["id"], int)


@pytest.mark.parametrize("operation", list(NO_BODY_DELETES), ids=lambda op: _key(*op))
def test_a_no_body_delete_answers_200_with_an_empty_body(api, world, operation):
    path = NO_BODY_DELETES[operation](world)
    response = api.delete(path)
    assert (response.status_code, response.content) == (200, b"")
    assert "Content-Type" not in response
    assert response["X-RateLimit-Remaining"]  # still the API's answer, headers and all
    assert api.get(path).status_code in (401, 404)  # gone (a deleted user's token no longer works)


def test_errors_keep_their_status_through_the_policy(api, world):
    assert api.post("/things/", {}, format="json").status_code == 400
    assert APIClient().post("/things/", {"name": "x"}, format="json").status_code == 401
    assert api.delete(f"/copies/{world['make'].pk}/").status_code == 403
    assert api.delete("/collections/987654321/").status_code == 404
