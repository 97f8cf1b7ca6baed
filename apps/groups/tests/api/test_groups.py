"""GET/POST /groups/, GET/PATCH /groups/{id}/, POST /groups/{id}/image, members (spec §4.8)."""
import pytest

from apps.accounts.tests.factories import UserFactory
from tests.support.api import assert_error
from apps.groups.models import Group, GroupMember
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory

pytestmark = pytest.mark.django_db

GROUP_KEYS = {
    "id", "name", "slug", "description", "url", "public_url", "image", "creator", "is_member", "members",
    "things", "group_topics",
}


def test_create_makes_the_caller_owner_and_member(api, user):
    response = api.post("/groups/", {"name": "Fans", "description": "d", "slug": "fans"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == GROUP_KEYS
    assert body["is_member"] is True and body["members"]["count"] == 1
    assert body["public_url"].endswith("/groups/fans") and body["members"]["url"].endswith("/members")
    assert body["creator"]["id"] == user.pk and body["image"] is None
    assert GroupMember.objects.filter(group_id=body["id"], user=user).exists()


@pytest.mark.parametrize("slug", ["has space", "bad/slug", "", "é"])
def test_create_rejects_an_invalid_slug(api, slug):
    assert_error(api.post("/groups/", {"name": "a", "description": "d", "slug": slug}, format="json"), 400)
    assert not Group.objects.exists()


def test_create_rejects_a_taken_slug_in_any_case(api):
    GroupFactory(slug="fans")
    body = assert_error(api.post("/groups/", {"name": "a", "description": "d", "slug": "FANS"}, format="json"), 400)
    assert "slug" in body["errors"]


def test_create_requires_every_field(api):
    assert_error(api.post("/groups/", {"name": "a", "slug": "a"}, format="json"), 400, "VALIDATION_FAILED")


def test_get_one_and_unknown_is_404(api):
    group = GroupFactory()
    assert api.get(f"/groups/{group.pk}").json()["is_member"] is False
    assert_error(api.get("/groups/999999/"), 404)
    assert_error(api.get(f"/groups/{2**63}/"), 404)


def test_patch_by_owner_only(api, user):
    # Another user's group (403) and a missing one (404): test_access_matrix.py.
    mine = GroupFactory(creator=user)
    response = api.patch(f"/groups/{mine.pk}/", {"name": "New"}, format="json")
    assert response.status_code == 200 and response.json()["name"] == "New"
    assert_error(api.patch(f"/groups/{mine.pk}/", {"name": 5}, format="json"), 400)


def test_list_sorts_and_filters(api, user):
    small, big, chatty = GroupFactory(), GroupFactory(), GroupFactory(creator=user)
    for _ in range(2):
        GroupMember.objects.create(group=big, user=UserFactory())
    GroupTopicFactory(group=chatty)
    assert [g["id"] for g in api.get("/groups/").json()][0] == big.pk
    assert [g["id"] for g in api.get("/groups/?sort=topics").json()][0] == chatty.pk
    assert [g["id"] for g in api.get("/groups/?sort=newest").json()] == [chatty.pk, big.pk, small.pk]
    assert [g["id"] for g in api.get("/groups/?sort=activity").json()][0] == chatty.pk
    assert [g["id"] for g in api.get("/groups/?filter=my-groups").json()] == [chatty.pk]
    Group.objects.filter(pk=small.pk).update(description="all about resin")
    assert [g["id"] for g in api.get("/groups/?search=RESIN").json()] == [small.pk]


@pytest.mark.parametrize("query", ["filter=mine", "sort=oldest", "page=x"])
def test_list_rejects_bad_query_values(api, query):
    assert_error(api.get(f"/groups/?{query}"), 400)


@pytest.mark.parametrize("rows", [1, 30])
def test_list_query_count_is_constant(api, rows, django_assert_num_queries):
    for _ in range(rows):
        GroupTopicFactory()
    # token (with user), the user's last_active touch, count, page of groups with every count and is_member.
    with django_assert_num_queries(4):
        assert len(api.get("/groups/").json()) == rows


def test_image_starts_an_upload_for_the_owner_only(api, user, other_user, s3):
    mine, theirs = GroupFactory(creator=user), GroupFactory(creator=other_user)
    response = api.post(f"/groups/{mine.pk}/image", {"filename": "logo.png"}, format="json")
    assert response.status_code == 200, response.content
    assert "action" in response.json()
    assert_error(api.post(f"/groups/{theirs.pk}/image", {"filename": "logo.png"}, format="json"), 403)
    assert_error(api.post(f"/groups/{mine.pk}/image", {"filename": "notes.txt"}, format="json"), 400)


def test_members_are_listed_owner_first_then_by_join_date(api, user, other_user):
    group = GroupFactory(creator=user)
    late = UserFactory()
    GroupMember.objects.create(group=group, user=other_user)
    GroupMember.objects.create(group=group, user=late)
    GroupMember.objects.filter(group=group, user=user).update(joined="2100-01-01T00:00:00Z")
    assert [m["id"] for m in api.get(f"/groups/{group.pk}/members").json()] == [user.pk, other_user.pk, late.pk]


def test_join_twice_is_ok_and_leave(api, user):
    group = GroupFactory()
    assert api.post(f"/groups/{group.pk}/members").json() == {"ok": True}
    assert api.post(f"/groups/{group.pk}/members/").json() == {"ok": True}
    assert GroupMember.objects.filter(group=group, user=user).count() == 1
    assert api.delete(f"/groups/{group.pk}/members").json() == {"ok": True}
    assert not GroupMember.objects.filter(group=group, user=user).exists()
    assert_error(api.post("/groups/999999/members"), 404)


def test_owner_cannot_leave_but_may_remove_a_member(api, user, other_user):
    group = GroupFactory(creator=user)
    GroupMember.objects.create(group=group, user=other_user)
    assert_error(api.delete(f"/groups/{group.pk}/members"), 400, "RULE_VIOLATION")
    assert_error(api.delete(f"/groups/{group.pk}/members/{user.pk}"), 400)
    assert api.delete(f"/groups/{group.pk}/members/{other_user.pk}").json() == {"ok": True}
    assert list(group.memberships.values_list("user_id", flat=True)) == [user.pk]


def test_members_may_remove_only_themselves(api, user, other_user):
    group = GroupFactory(creator=other_user)
    third = UserFactory()
    GroupMember.objects.create(group=group, user=user)
    GroupMember.objects.create(group=group, user=third)
    assert_error(api.delete(f"/groups/{group.pk}/members/{third.pk}"), 403)
    assert_error(api.delete(f"/groups/{group.pk}/members/{other_user.pk}"), 403)
    assert api.delete(f"/groups/{group.pk}/members/{user.pk}").json() == {"ok": True}
    assert group.memberships.count() == 2
