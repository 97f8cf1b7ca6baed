"""The access matrix of the comments endpoints (spec §4.6, the comment rows of §4.2), declared once per
endpoint (tests.support.api.Access): anonymous 401, another user 403 where only the author (or the owner
of what it is on) may act, a missing id 404. A refused call answers docs/decisions.md's error body and
changes no row."""
import pytest

from apps.comments.tests.factories import CommentFactory
from tests.support.api import Access, access_cases
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

ON_A_COMMENT = [
    Access("GET", "/comments/{id}/", stranger=None),
    # 403 comes before 400: nobody learns input rules on someone else's comment.
    Access("PATCH", "/comments/{id}/", body={"body": ""}),
    Access("DELETE", "/comments/{id}/"),
    Access("GET", "/comments/{id}/replies", stranger=None),
    Access("POST", "/comments/{id}/reply", body={"body": "a"}, stranger=None),
]
# A Thing's comments follow the Thing's matrix: on a draft they are its creator's alone.
ON_A_DRAFT = [
    Access("GET", "/things/{id}/comments"),
    Access("GET", "/things/{id}/root-comments"),
    Access("GET", "/things/{id}/threaded-comments"),
    Access("POST", "/things/{id}/comments", body={"body": "x"}),
]
LISTS = [Access("POST", "/comments/", body={"body": "x"}, stranger=None, missing=None)]


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_COMMENT))
def test_a_comment_is_changed_by_its_author(access, endpoint, caller, user):
    access(endpoint, caller, CommentFactory(user=user, thing=ThingFactory()))


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_DRAFT))
def test_the_comments_of_a_draft_are_its_creators_alone(access, endpoint, caller, user):
    access(endpoint, caller, ThingFactory(creator=user, is_published=False))


@pytest.mark.parametrize("endpoint, caller", access_cases(LISTS))
def test_posting_needs_a_token(access, endpoint, caller):
    access(endpoint, caller)
