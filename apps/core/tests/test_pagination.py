"""page / per_page, clamping, the Link header and a constant query count (docs/decisions.md: Pagination)."""
import re
from urllib.parse import parse_qsl, urlencode, urlsplit

import factory
import pytest

from apps.accounts.models import User
from apps.accounts.tests.factories import UserFactory

pytestmark = pytest.mark.urls("apps.core.tests.urls")


def links(response) -> dict[str, str]:
    """rel → URL, with the query parameters in a fixed order so tests can compare whole URLs."""
    out = {}
    for url, rel in re.findall(r'<([^>]+)>; rel="(\w+)"', response["Link"]):
        parts = urlsplit(url)
        query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
        out[rel] = parts._replace(query=query).geturl()
    return out


@pytest.fixture
def users(api):
    """The ids of the 45 users in all: the caller, the owner of its application and 43 more."""
    UserFactory.create_batch(43)
    return list(User.objects.order_by("id").values_list("id", flat=True))


def test_list_is_a_json_array_of_30_by_default(api, users):
    response = api.get("/users/")
    assert response.status_code == 200
    assert [row["id"] for row in response.json()] == users[:30]


def test_per_page_and_page_select_the_slice(api, users):
    response = api.get("/users/?per_page=10&page=3")
    assert [row["id"] for row in response.json()] == users[20:30]


def test_link_header_has_absolute_urls_and_keeps_other_parameters(api, users):
    response = api.get("/users/?per_page=10&page=3&sort=newest")
    assert links(response) == {
        "first": "http://testserver/users/?page=1&per_page=10&sort=newest",
        "prev": "http://testserver/users/?page=2&per_page=10&sort=newest",
        "next": "http://testserver/users/?page=4&per_page=10&sort=newest",
        "last": "http://testserver/users/?page=5&per_page=10&sort=newest",
    }


def test_first_page_has_no_prev_and_last_page_has_no_next(api, users):
    assert set(links(api.get("/users/?per_page=10"))) == {"first", "next", "last"}
    assert set(links(api.get("/users/?per_page=10&page=5"))) == {"first", "prev", "last"}


def test_single_page_links_only_first_and_last(api):
    assert links(api.get("/users/")) == {
        "first": "http://testserver/users/?page=1",
        "last": "http://testserver/users/?page=1",
    }


@pytest.mark.parametrize(
    "query, expected_slice",
    [
        ("per_page=0", slice(0, 1)),
        ("per_page=-5", slice(0, 1)),
        ("per_page=1000", slice(0, 45)),  # clamped to 100, and only 45 exist
        ("page=0", slice(0, 30)),
        ("page=-3", slice(0, 30)),
        ("page=99", slice(30, 45)),  # past the end: the last page
        ("page=", slice(0, 30)),
        ("per_page=&page=", slice(0, 30)),
        ("page=%2B2", slice(30, 45)),  # an explicit sign is an integer's
        ("page=-0", slice(0, 30)),
    ],
)
def test_out_of_range_values_are_clamped(api, users, query, expected_slice):
    response = api.get(f"/users/?{query}")
    assert response.status_code == 200
    assert [row["id"] for row in response.json()] == users[expected_slice]


def test_per_page_above_the_maximum_serves_100(api, user):
    UserFactory.create_batch(120)
    response = api.get("/users/?per_page=500")
    assert len(response.json()) == 100
    # per_page stays as the client sent it in the links; it means 100 again on the next page
    assert links(response)["last"] == "http://testserver/users/?page=2&per_page=500"


@pytest.mark.parametrize("param", ["page", "per_page"])
@pytest.mark.parametrize(
    "value",
    # Only an empty value means the default; whitespace alone or around digits, `_` between them and
    # other scripts' digits are not integers as the OpenAPI document writes them, though int() takes them
    # (a Schemathesis finding: `page=%0B` answered page 1).
    ["two", "1.5", "1e3", "%20", "%0B", "%20%20", "%202", "2%0A", "1_0", "%D9%A2", "%EF%BC%92", "--2", "+"],
)
def test_non_numbers_are_a_400(api, user, param, value):
    response = api.get(f"/users/?{param}={value}")
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "VALIDATION_FAILED"
    assert body["errors"] == {param: ["A valid integer is required."]}
    assert response["X-Error"] == body["error"]


def test_empty_list_is_an_empty_array_with_links_to_page_1(api):
    response = api.get("/users/?prefix=nobody&page=4")
    assert response.json() == []
    assert links(response) == {
        "first": "http://testserver/users/?page=1&prefix=nobody",
        "last": "http://testserver/users/?page=1&prefix=nobody",
    }


@pytest.mark.parametrize("rows", [1, 30])
def test_query_count_is_the_same_for_1_and_30_rows(api, django_assert_num_queries, rows):
    UserFactory.create_batch(rows, username=factory.Sequence(lambda n: f"row{n}"))
    api.get("/users/")  # a user's first call in 5 minutes also writes last_active; keep it out of the count
    # 1. the token with its user and application, 2. COUNT of the users, 3. SELECT of the page
    with django_assert_num_queries(3):
        response = api.get("/users/?prefix=row")
    assert len(response.json()) == rows


@pytest.mark.django_db
def test_a_long_list_is_counted_once_then_its_total_is_reused(django_assert_num_queries):
    from django.contrib.auth import get_user_model

    from apps.core.pipeline.pagination import LARGE_LIST, CountCachingPaginator

    User = get_user_model()
    User.objects.bulk_create([User(username=f"many{i}") for i in range(LARGE_LIST + 5)])
    queryset = User.objects.filter(username__startswith="many").order_by("pk")

    with django_assert_num_queries(2):  # the bounded COUNT, then the full one
        assert CountCachingPaginator(queryset, 30).count == LARGE_LIST + 5
    with django_assert_num_queries(0):  # the fresh total comes from the cache, no COUNT at all
        assert CountCachingPaginator(queryset, 30).count == LARGE_LIST + 5


@pytest.mark.django_db
def test_a_short_list_is_counted_exactly_every_time(django_assert_num_queries):
    from django.contrib.auth import get_user_model

    from apps.core.pipeline.pagination import CountCachingPaginator

    User = get_user_model()
    User.objects.bulk_create([User(username=f"few{i}") for i in range(3)])
    queryset = User.objects.filter(username__startswith="few").order_by("pk")
    with django_assert_num_queries(1):
        assert CountCachingPaginator(queryset, 30).count == 3
    User.objects.create(username="few3")
    assert CountCachingPaginator(queryset, 30).count == 4


def test_a_stale_count_is_recounted_by_one_request_while_the_others_keep_the_old_total():
    """issue 17: every 30 s one request counts again; concurrent requests never all miss at once."""
    import threading
    import time

    from django.core.cache import cache

    from apps.core.pipeline.pagination import COUNT_CACHE_SECONDS, count_cached

    key = "list-count:test-single-flight"
    cache.set(key, (100, time.time() - COUNT_CACHE_SECONDS - 1), 600)  # stale
    started, release = threading.Event(), threading.Event()
    counted: list[object] = []

    def slow_count():
        counted.append(1)
        started.set()
        release.wait(5)
        return 101

    counter = threading.Thread(target=lambda: counted.append(("first", count_cached(key, slow_count))))
    counter.start()
    assert started.wait(5)
    # While the first request counts, ten others answer at once with the previous total, counting nothing.
    def extra_count():
        counted.append("extra")
        return 999

    others = [count_cached(key, extra_count) for _ in range(10)]
    release.set()
    counter.join(5)
    assert others == [100] * 10
    assert counted == [1, ("first", 101)]
    assert count_cached(key, lambda: 999) == 101  # fresh now


def test_with_a_cold_cache_the_others_wait_for_the_counting_request():
    import threading

    from apps.core.pipeline.pagination import count_cached

    key = "list-count:test-cold"
    started, release = threading.Event(), threading.Event()
    calls = []

    def slow_count():
        calls.append("count")
        started.set()
        release.wait(5)
        return 7

    counter = threading.Thread(target=lambda: count_cached(key, slow_count))
    counter.start()
    assert started.wait(5)
    threading.Timer(0.2, release.set).start()
    def extra_count():
        calls.append("extra")
        return 999

    assert count_cached(key, extra_count) == 7
    counter.join(5)
    assert calls == ["count"]


@pytest.mark.parametrize("query", ["", "?page=2", "?per_page=30&page=3", "?b=2&a=1&page=1&a=3", "?callback=cb&x=",
                                   "?q=caf%C3%A9+clip&page=2", "?page=2&page=5"])
def test_link_header_urls_are_drfs_replace_query_param(query):
    """link_header parses the request's URL once; each link is what DRF's replace_query_param makes."""
    from django.test import RequestFactory
    from rest_framework.utils.urls import replace_query_param

    from apps.core.pipeline.pagination import link_header

    request = RequestFactory().get("/newest/" + query)
    url = request.build_absolute_uri()
    expected = ", ".join(f'<{replace_query_param(url, "page", n)}>; rel="{rel}"'
                         for rel, n in (("first", 1), ("prev", 2), ("next", 4), ("last", 9)))
    assert link_header(request, 3, 9) == expected
