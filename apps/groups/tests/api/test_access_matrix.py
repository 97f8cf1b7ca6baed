"""The access matrix of the groups endpoints (spec §4.8), declared once per endpoint
(tests.support.api.Access): anonymous 401, another user 403 where only the owner (or a member, or the
topic's author) may act, a missing id 404. A refused call answers docs/decisions.md's error body and changes
no row."""
import pytest

from tests.support.api import Access, access_cases
from apps.groups.models import GroupThing
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

ON_A_GROUP = [
    Access("GET", "/groups/{id}/", stranger=None),
    Access("PATCH", "/groups/{id}/", body={"name": "x"}),
    Access("POST", "/groups/{id}/image", body={"filename": "logo.png"}),
    Access("GET", "/groups/{id}/things", stranger=None),
    Access("PATCH", "/groups/{id}/things/{thing_id}", body={"rank": 2}),
    Access("GET", "/groups/{id}/members", stranger=None),
    Access("POST", "/groups/{id}/members", stranger=None),
    Access("POST", "/groups/{id}/group-topics", body={"name": "Spam", "body": "spam"}),
]
ON_A_TOPIC = [
    Access("GET", "/group-topics/{id}/", stranger=None),
    Access("PATCH", "/group-topics/{id}/", body={"body": "x"}),
    Access("POST", "/group-topics/{id}/pin"),
    Access("DELETE", "/group-topics/{id}/pin"),
]
LISTS = [
    Access("GET", "/groups/", stranger=None, missing=None),
    Access("POST", "/groups/", stranger=None, missing=None),
]


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_GROUP))
def test_a_group_is_changed_by_its_owner_and_members(access, endpoint, caller, user):
    group, thing = GroupFactory(creator=user), ThingFactory()
    GroupThing.objects.create(group=group, thing=thing, added_by=user)
    access(endpoint, caller, group, thing_id=thing.pk)


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_TOPIC))
def test_a_topic_is_changed_by_its_author_and_pinned_by_the_groups_owner(access, endpoint, caller, user):
    access(endpoint, caller, GroupTopicFactory(group=GroupFactory(creator=user)))


@pytest.mark.parametrize("endpoint, caller", access_cases(LISTS))
def test_the_lists_need_a_token(access, endpoint, caller):
    access(endpoint, caller)
