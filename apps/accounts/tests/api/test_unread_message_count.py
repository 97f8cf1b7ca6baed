"""GET /users/unread-message-count (spec §4.1)."""

import pytest
from django.utils import timezone

from apps.accounts.tests.factories import MessageFactory

pytestmark = pytest.mark.django_db


def test_it_counts_the_token_users_unread_messages(api, user, other_user):
    MessageFactory.create_batch(2, recipient=user)
    MessageFactory(recipient=user, read_at=timezone.now())
    MessageFactory(recipient=other_user)
    MessageFactory(sender=user, recipient=other_user)
    response = api.get("/users/unread-message-count")
    assert response.status_code == 200
    assert response.json() == {"count": 2}


def test_it_answers_with_a_trailing_slash_too(api, user):
    # It must not be taken for the user detail of someone called "unread-message-count".
    MessageFactory(recipient=user)
    assert api.get("/users/unread-message-count/").json() == {"count": 1}


@pytest.mark.parametrize("messages", [1, 30])
def test_query_count_does_not_grow_with_messages(api, user, messages, django_assert_num_queries):
    MessageFactory.create_batch(messages, recipient=user)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    with django_assert_num_queries(2):  # the token with its user and application; COUNT of messages
        assert api.get("/users/unread-message-count").json() == {"count": messages}
