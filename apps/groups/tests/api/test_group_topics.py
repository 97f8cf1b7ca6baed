"""GET/POST /groups/{id}/group-topics, GET/PATCH /group-topics/{id}/, POST/DELETE pin (spec §4.8, §3)."""
import pytest

from tests.support.api import assert_error
from apps.groups.models import GroupMember
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory

pytestmark = pytest.mark.django_db

TOPIC_KEYS = {"id", "name", "body", "user", "group_url", "url", "added", "modified", "pinned", "comments"}


def test_members_start_topics(api, user):
    group = GroupFactory()
    assert_error(api.post(f"/groups/{group.pk}/group-topics", {"name": "a", "body": "b"}, format="json"), 403)
    GroupMember.objects.create(group=group, user=user)
    response = api.post(f"/groups/{group.pk}/group-topics", {"name": "Hi", "body": "there"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == TOPIC_KEYS
    assert body["comments"]["count"] == 0 and body["comments"]["url"].endswith(f"/group-topics/{body['id']}/comments")
    assert body["user"]["id"] == user.pk and body["pinned"] is False
    assert_error(api.post(f"/groups/{group.pk}/group-topics", {"name": "Hi"}, format="json"), 400)
    assert_error(api.post("/groups/999999/group-topics", {"name": "a", "body": "b"}, format="json"), 404)


def test_list_pinned_first_then_newest(api):
    group = GroupFactory()
    first, pinned, last = GroupTopicFactory(group=group), GroupTopicFactory(group=group, pinned=True), \
        GroupTopicFactory(group=group)
    assert [t["id"] for t in api.get(f"/groups/{group.pk}/group-topics").json()] == [pinned.pk, last.pk, first.pk]


def test_patch_by_author_only(api, user):
    # Another user's topic (403), a missing one (404), anonymous (401): test_access_matrix.py.
    mine = GroupTopicFactory(user=user)
    assert api.patch(f"/group-topics/{mine.pk}/", {"body": "new"}, format="json").json()["body"] == "new"


def test_pin_and_unpin_by_group_owner_only_repeat_is_a_no_op(api, user, client_for, other_user):
    group = GroupFactory(creator=user)
    topic = GroupTopicFactory(group=group, user=other_user)
    assert api.post(f"/group-topics/{topic.pk}/pin").json()["pinned"] is True
    assert api.post(f"/group-topics/{topic.pk}/pin").json()["pinned"] is True
    assert_error(client_for(other_user).delete(f"/group-topics/{topic.pk}/pin"), 403)
    assert api.delete(f"/group-topics/{topic.pk}/pin").json()["pinned"] is False
    assert api.delete(f"/group-topics/{topic.pk}/pin").json()["pinned"] is False
    assert_error(api.post("/group-topics/999999/pin"), 404)


@pytest.mark.parametrize("rows", [1, 30])
def test_list_query_count_is_constant(api, rows, django_assert_num_queries):
    group = GroupFactory()
    for _ in range(rows):
        GroupTopicFactory(group=group)
    # token (with user), the user's last_active touch, group, count, page of rows: topics with their authors joined.
    with django_assert_num_queries(5):
        assert len(api.get(f"/groups/{group.pk}/group-topics").json()) == rows
