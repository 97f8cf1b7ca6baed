"""The site's pages never answer a 500 for a query value: a sweep of the pages people browse with values
no form sends (a stale bookmark, a hand-typed URL, a crawler). One was: /find?category=<unknown slug>
(apps.search.pages.find)."""
import pytest
from django.test import Client

from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

VALUES = ["9" * 40, "%00", "a" * 3000]
NAMES = ("page", "q", "sort", "license", "category", "type", "tab", "next")
PATHS = (
    "/", "/browse/newest", "/browse/popular", "/browse/featured", "/browse/categories",
    "/browse/categories/robotics", "/browse/tags/robot", "/find", "/find/suggest", "/@{user}",
    "/@{user}/things", "/@{user}/likes", "/thing:{thing}", "/account/messages", "/developers/",
    "/developers/apps/", "/developers/docs/", "/account/", "/thing:{thing}/files/status",
)


def test_no_page_answers_a_500_for_a_query_value(user):
    thing = ThingFactory(creator=user)
    client = Client()
    client.force_login(user)
    failed = []
    for path in PATHS:
        path = path.format(user=user.username, thing=thing.pk)
        for name in NAMES:
            for value in VALUES:
                response = client.get(f"{path}?{name}={value}", HTTP_ACCEPT="text/html")
                if response.status_code >= 500:
                    failed.append((path, name, value[:12], response.status_code))
    assert not failed, failed[:20]
