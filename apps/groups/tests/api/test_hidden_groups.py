"""A group hidden by a moderator (issue 5, core.moderation): 404 on its detail, topics, Things and members,
absent from every list, for everyone but staff (its creator and members included)."""
import pytest

from apps.accounts.tests.factories import UserFactory
from tests.support.api import assert_error
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.groups.models import GroupMember, GroupThing
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

VIEWERS = ("creator", "member", "stranger", "staff")


@pytest.fixture
def setup(client_for):
    creator, member, stranger = UserFactory(), UserFactory(), UserFactory()
    staff = UserFactory(is_staff=True)
    hidden = GroupFactory(creator=creator, name="Hidden fans")
    visible = GroupFactory(creator=creator, name="Visible fans")
    topic = GroupTopicFactory(group=hidden)
    for group in (hidden, visible):
        GroupMember.objects.create(group=group, user=member)
        GroupMember.objects.create(group=group, user=staff)
        GroupThing.objects.create(group=group, thing=ThingFactory(creator=member), added_by=member)
    moderation_hide(obj=hidden, reason="Harassment.", by=staff)
    clients = {"creator": creator, "member": member, "stranger": stranger, "staff": staff}
    return {
        "hidden": hidden, "visible": visible, "topic": topic, "staff": staff, "member": member,
        "client": {name: client_for(user) for name, user in clients.items()},
    }


@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize("suffix", ["/", "/group-topics", "/things", "/members"])
def test_the_group_and_its_sub_lists_are_404_but_for_staff(setup, viewer, suffix):
    response = setup["client"][viewer].get(f"/groups/{setup['hidden'].pk}{suffix}")
    if viewer == "staff":
        assert response.status_code == 200, response.content
    else:
        assert_error(response, 404, "NOT_FOUND")
    assert setup["client"][viewer].get(f"/groups/{setup['visible'].pk}{suffix}").status_code == 200


@pytest.mark.parametrize("viewer", VIEWERS)
def test_its_topics_are_404_but_for_staff(setup, viewer):
    response = setup["client"][viewer].get(f"/group-topics/{setup['topic'].pk}/")
    if viewer == "staff":
        assert response.status_code == 200
    else:
        assert_error(response, 404)


@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize("query", [{}, {"filter": "my-groups"}, {"sort": "activity"}, {"search": "fans"}])
def test_lists_leave_it_out_but_for_staff(setup, viewer, query):
    ids = [group["id"] for group in setup["client"][viewer].get("/groups/", query).json()]
    if viewer == "stranger" and query.get("filter") == "my-groups":
        assert ids == []
        return
    assert setup["visible"].pk in ids
    assert (setup["hidden"].pk in ids) is (viewer == "staff")


@pytest.mark.parametrize("viewer", ("creator", "member", "stranger"))
def test_every_write_on_a_hidden_group_is_404(setup, viewer):
    api = setup["client"][viewer]
    group = setup["hidden"].pk
    thing = ThingFactory().pk
    responses = [
        api.patch(f"/groups/{group}/", {"name": "Renamed"}, format="json"),
        api.post(f"/groups/{group}/image", {"filename": "a.png"}, format="json"),
        api.post(f"/groups/{group}/members"),
        api.delete(f"/groups/{group}/members"),
        api.post(f"/groups/{group}/group-topics", {"name": "n", "body": "b"}, format="json"),
        api.post(f"/groups/{group}/things/{thing}"),
        api.patch(f"/group-topics/{setup['topic'].pk}/", {"name": "n"}, format="json"),
        api.post(f"/group-topics/{setup['topic'].pk}/pin"),
    ]
    for response in responses:
        assert_error(response, 404)
    assert not GroupThing.objects.filter(group_id=group, thing_id=thing).exists()


def test_unhiding_restores_it_unchanged(setup):
    moderation_unhide(obj=setup["hidden"])
    api = setup["client"]["member"]
    body = api.get(f"/groups/{setup['hidden'].pk}/").json()
    assert body["name"] == "Hidden fans" and body["is_member"] is True and body["things"]["count"] == 1
    topics = api.get(f"/groups/{setup['hidden'].pk}/group-topics").json()
    assert [t["id"] for t in topics] == [setup["topic"].pk]


@pytest.mark.parametrize("rows", [1, 30])
def test_the_list_query_count_is_constant_with_hidden_groups(setup, rows, django_assert_num_queries):
    for _ in range(rows):
        moderation_hide(obj=GroupFactory(), reason="Spam.", by=setup["staff"])
        GroupFactory()
    api = setup["client"]["member"]
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    with django_assert_num_queries(3):  # token; COUNT; page of groups with their counts
        assert api.get("/groups/").status_code == 200
