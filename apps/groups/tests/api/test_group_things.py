"""GET /groups/{id}/things, POST/DELETE/PATCH /groups/{id}/things/{thing_id} (spec §4.8, §3, §7)."""
import pytest

from tests.support.api import assert_error
from apps.groups.models import GroupMember, GroupThing
from apps.groups.tests.factories import GroupFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def _add(group, thing, user=None):
    return GroupThing.objects.create(group=group, thing=thing, added_by=user or group.creator)


def _rank(group, thing):
    return GroupThing.objects.get(group=group, thing=thing).rank


def test_members_add_things_and_again_is_ok(api, user):
    group, thing = GroupFactory(), ThingFactory()
    assert_error(api.post(f"/groups/{group.pk}/things/{thing.pk}"), 403)  # not a member yet
    GroupMember.objects.create(group=group, user=user)
    assert api.post(f"/groups/{group.pk}/things/{thing.pk}").json() == {"ok": True}
    assert api.post(f"/groups/{group.pk}/things/{thing.pk}/").json() == {"ok": True}
    assert GroupThing.objects.get().added_by == user
    assert_error(api.post(f"/groups/{group.pk}/things/999999"), 404)
    assert_error(api.post(f"/groups/999999/things/{thing.pk}"), 404)
    assert_error(api.post(f"/groups/{group.pk}/things/{ThingFactory(is_published=False).pk}"), 403)


def test_remove_rules(api, user, other_user):
    group = GroupFactory(creator=other_user)
    mine, theirs, absent = ThingFactory(), ThingFactory(), ThingFactory()
    GroupMember.objects.create(group=group, user=user)
    _add(group, mine, user)
    _add(group, theirs)
    assert_error(api.delete(f"/groups/{group.pk}/things/{absent.pk}"), 400, "RULE_VIOLATION")
    assert_error(api.delete(f"/groups/{group.pk}/things/{theirs.pk}"), 403)
    assert api.delete(f"/groups/{group.pk}/things/{mine.pk}").json() == {"ok": True}
    assert list(GroupThing.objects.values_list("thing_id", flat=True)) == [theirs.pk]
    outsider_group = GroupFactory()
    assert_error(api.delete(f"/groups/{outsider_group.pk}/things/{theirs.pk}"), 403)


def test_rank_state_machine_of_spec_section_3(api, user):
    group, thing = GroupFactory(creator=user), ThingFactory()
    _add(group, thing)
    url = f"/groups/{group.pk}/things/{thing.pk}"
    assert_error(api.patch(url, {"rank": 0}, format="json"), 400, "RULE_VIOLATION")  # not featured + 0
    assert api.patch(url, {"rank": 2}, format="json").json() == {"ok": True}
    assert _rank(group, thing) == 2
    body = assert_error(api.patch(url, {"rank": 3}, format="json"), 400)  # featured + 1..3
    assert "must first be removed with rank 0" in body["error"]
    assert _rank(group, thing) == 2
    assert api.patch(url, {"rank": 0}, format="json").json() == {"ok": True}
    assert _rank(group, thing) == 0


@pytest.mark.parametrize("rank", [-1, 4, "1", 1.5, True, None])
def test_rank_must_be_an_integer_0_to_3(api, user, rank):
    group, thing = GroupFactory(creator=user), ThingFactory()
    _add(group, thing)
    assert_error(api.patch(f"/groups/{group.pk}/things/{thing.pk}", {"rank": rank}, format="json"), 400,
                 "VALIDATION_FAILED")


def test_rank_rules_slot_taken_not_in_group_and_owner_only(api, user, client_for, other_user):
    group, first, second = GroupFactory(creator=user), ThingFactory(), ThingFactory()
    _add(group, first)
    _add(group, second)
    assert api.patch(f"/groups/{group.pk}/things/{first.pk}", {"rank": 1}, format="json").status_code == 200
    assert_error(api.patch(f"/groups/{group.pk}/things/{second.pk}", {"rank": 1}, format="json"), 400)
    assert_error(api.patch(f"/groups/{group.pk}/things/{ThingFactory().pk}", {"rank": 1}, format="json"), 400)
    GroupMember.objects.create(group=group, user=other_user)
    assert_error(client_for(other_user).patch(f"/groups/{group.pk}/things/{second.pk}", {"rank": 2},
                                              format="json"), 403)
    assert_error(api.patch(f"/groups/999999/things/{second.pk}", {"rank": 2}, format="json"), 404)


def test_list_shows_only_visible_things_newest_first_and_searches(api, user):
    group = GroupFactory()
    old, new = ThingFactory(name="Bracket"), ThingFactory(name="Brackets holder", like_count=5)
    draft = ThingFactory(name="Hook", is_published=False)
    own_draft = ThingFactory(name="Hook", creator=user, is_published=False)
    for thing in (old, new, draft, own_draft):
        _add(group, thing)
    ids = [t["id"] for t in api.get(f"/groups/{group.pk}/things").json()]
    assert ids == [own_draft.pk, new.pk, old.pk]
    assert [t["id"] for t in api.get(f"/groups/{group.pk}/things?sort=popular").json()][0] == new.pk
    assert [t["id"] for t in api.get(f"/groups/{group.pk}/things?search=bracket").json()] == [old.pk, new.pk]
    assert_error(api.get(f"/groups/{group.pk}/things?sort=oldest"), 400)
    assert_error(api.get(f"/groups/{group.pk}/things?sort=newest&search=x"), 400)
    assert api.get(f"/groups/{group.pk}").json()["things"]["count"] == 3


@pytest.mark.parametrize("rows", [1, 30])
def test_list_query_count_is_constant(api, rows, django_assert_num_queries):
    group = GroupFactory()
    for _ in range(rows):
        _add(group, ThingFactory())
    # token (with user), the user's last_active touch, group, count, page of rows: Things (the rate limit is in Redis).
    with django_assert_num_queries(5):
        assert len(api.get(f"/groups/{group.pk}/things").json()) == rows
