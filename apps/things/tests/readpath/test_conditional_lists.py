"""Issue 24: conditional requests on lists. Every public list GET (the kept /newest/, /popular/,
/featured/ pages, the other paginated lists, search) carries a strong ETag, the digest of the body it
answers, decided in one place (apps.core.pipeline.views.ApiView), and answers 304 without a body to an
If-None-Match naming it; a change to a Thing on the page gives the page a new ETag. The same whether the
page is read from the cache or built."""
import pytest

from apps.search.tests.helpers import indexed_thing
from apps.things import services
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

LISTS = ["/newest/?per_page=5", "/popular/", "/featured/", "/tags/", "/categories/"]


@pytest.fixture
def catalogue(other_user):
    things = [ThingFactory(creator=other_user, tags=["clip"]) for _ in range(4)]
    for thing in things[:2]:
        services.thing_set_featured(thing=thing, featured=True)
    return things


def _etag(response) -> str:
    etag = response.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")
    return etag


@pytest.mark.parametrize("path", LISTS)
def test_a_list_carries_a_strong_etag_and_answers_304(caches, api, catalogue, path):
    first = api.get(path)
    assert first.status_code == 200
    etag = _etag(first)
    for _ in range(2):  # caches on: the kept page answers the same bytes, the same tag
        again = api.get(path)
        assert again.content == first.content and _etag(again) == etag
    for header in (etag, f"W/{etag}", f'"nope", {etag}'):
        conditional = api.get(path, HTTP_IF_NONE_MATCH=header)
        assert conditional.status_code == 304, header
        assert conditional.content == b"" and conditional.headers["ETag"] == etag
        assert "X-RateLimit-Limit" in conditional.headers and "Content-Type" not in conditional.headers
    assert api.get(path, HTTP_IF_NONE_MATCH='"nope"').status_code == 200


def test_a_change_on_the_page_moves_its_etag(caches, api, user, catalogue, django_capture_on_commit_callbacks):
    path = "/newest/?per_page=5"
    etag = _etag(api.get(path))
    api.get(path)
    with django_capture_on_commit_callbacks(execute=True):
        services.thing_like(user=user, thing=catalogue[0])
    after = api.get(path, HTTP_IF_NONE_MATCH=etag)
    assert after.status_code == 200 and _etag(after) != etag
    assert {t["id"]: t["like_count"] for t in after.json()}[catalogue[0].pk] == 1


def test_a_search_page_carries_an_etag(caches, api, other_user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(3):
            indexed_thing(creator=other_user, name=f"Cable clip {n}")
    first = api.get("/search/cable+clip/")
    etag = _etag(first)
    assert api.get("/search/cable+clip/").content == first.content
    assert api.get("/search/cable+clip/", HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_json_p_is_not_conditional(api, catalogue):
    response = api.get("/newest/?callback=cb")
    assert response.status_code == 200 and "ETag" not in response.headers
