"""Issue 24: conditional requests on a Thing. GET /things/{id}/ carries a strong ETag (the Thing's
version, which the database moves on every change of what the body shows, and the viewer's own
is_liked/is_watched) and answers 304 to an If-None-Match naming it; PATCH and DELETE accept If-Match and
answer 412 (docs/decisions.md's error body) when it names a version that is no longer current. The same
whether the body is read from the cache or built (one pipeline: apps.core.pipeline.views.ApiView)."""
import pytest

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(db):
    return UserFactory()


@pytest.fixture
def thing(owner):
    return ThingFactory(creator=owner)


def _etag(response) -> str:
    etag = response.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")
    return etag


def test_a_get_carries_a_strong_etag_and_answers_304_to_it(caches, api, thing):
    first = api.get(f"/things/{thing.pk}/")
    etag = _etag(first)
    again = api.get(f"/things/{thing.pk}/")  # caches on: answered from the cache
    assert _etag(again) == etag and again.content == first.content
    for header in (etag, f"W/{etag}", f'"nope", {etag}', "*"):
        conditional = api.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH=header)
        assert conditional.status_code == 304, header
        assert conditional.content == b"" and conditional.headers["ETag"] == etag
    other = api.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH='"1-00"')
    assert other.status_code == 200 and other.content == first.content


def test_the_etag_moves_with_every_change_and_with_the_viewers_own_fields(caches, api, client_for, user, thing):
    etag = _etag(api.get(f"/things/{thing.pk}/"))
    api.get(f"/things/{thing.pk}/")
    assert client_for(UserFactory()).post(f"/things/{thing.pk}/likes").status_code == 200  # a counter
    after_like = api.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert after_like.status_code == 200 and after_like.json()["like_count"] == 1
    assert _etag(after_like) != etag
    Thing.objects.filter(pk=thing.pk).update(description="Changed in bulk")  # no service, no signal
    bulk = api.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH=_etag(after_like))
    assert bulk.status_code == 200 and bulk.json()["description"] == "Changed in bulk"
    # The viewer's own is_liked is part of the representation: its ETag differs from another viewer's.
    assert api.post(f"/things/{thing.pk}/likes").status_code == 200
    mine = api.get(f"/things/{thing.pk}/")
    theirs = client_for(UserFactory()).get(f"/things/{thing.pk}/")
    assert mine.json()["is_liked"] is True and theirs.json()["is_liked"] is False
    assert _etag(mine) != _etag(theirs)


def test_the_cached_and_uncached_paths_give_the_same_etag(api, thing, settings):
    settings.THING_BODY_CACHE_SECONDS, settings.OAUTH_TOKEN_CACHE_SECONDS = 0, 0
    uncached = api.get(f"/things/{thing.pk}/")
    settings.THING_BODY_CACHE_SECONDS, settings.OAUTH_TOKEN_CACHE_SECONDS = 600, 5
    cached = [api.get(f"/things/{thing.pk}/") for _ in range(3)]
    assert {_etag(r) for r in cached} == {_etag(uncached)}
    assert {r.content for r in cached} == {uncached.content}


LIVE = {"HTTP_THINGYARD_VERSION": "thingiverse"}


def test_what_a_thingiverse_body_shows_of_other_things_moves_its_etag_but_holds_no_write(
        caches, client_for, owner, thing, settings):
    """Under `thingiverse` a Thing's body shows its ancestors whole and its tags' counts: a change of either
    changes the body without touching the Thing's row. Its ETag changes with them (no 304 for a copy showing
    an ancestor since hidden), but its data part does not (a write to the Thing is not refused), and the
    body built fresh, kept, or answered after a write carries the same tag."""
    ancestor = ThingFactory(name="The original", tags=["hinge"])
    thing.ancestors.add(ancestor)
    mine = client_for(owner)
    first = mine.get(f"/things/{thing.pk}/", **LIVE)
    etag = _etag(first)
    assert b"The original" in first.content and _etag(mine.get(f"/things/{thing.pk}/", **LIVE)) == etag
    assert mine.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH=etag, **LIVE).status_code == 304
    ThingFactory(tags=["hinge"])  # the ancestor's tag counts one Thing more
    counted = mine.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH=etag, **LIVE)
    assert counted.status_code == 200 and b'"count":2' in counted.content and _etag(counted) != etag
    Thing.objects.filter(pk=ancestor.pk).update(is_hidden=True)  # a moderator's bulk action: no signal
    hidden = mine.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH=_etag(counted), **LIVE)
    assert hidden.status_code == 200 and b"The original" not in hidden.content
    written = mine.patch(f"/things/{thing.pk}/", {"name": "Still mine"}, format="json", HTTP_IF_MATCH=etag, **LIVE)
    assert written.status_code == 200  # the Thing itself did not change since `etag`
    settings.THING_BODY_CACHE_SECONDS = 0
    assert _etag(mine.get(f"/things/{thing.pk}/", **LIVE)) == _etag(written)
    settings.THING_BODY_CACHE_SECONDS = 600
    assert {_etag(mine.get(f"/things/{thing.pk}/", **LIVE)) for _ in range(2)} == {_etag(written)}


def test_patch_with_a_stale_if_match_is_refused_with_412(caches, client_for, owner, thing):
    mine = client_for(owner)
    etag = _etag(mine.get(f"/things/{thing.pk}/"))
    updated = mine.patch(f"/things/{thing.pk}/", {"name": "First edit"}, format="json", HTTP_IF_MATCH=etag)
    assert updated.status_code == 200 and updated.json()["name"] == "First edit"
    new_etag = _etag(updated)
    assert new_etag != etag and _etag(mine.get(f"/things/{thing.pk}/")) == new_etag
    # A second client still holding the first version: its update would be lost.
    stale = mine.patch(f"/things/{thing.pk}/", {"name": "Lost edit"}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    assert stale.json() == {"error": stale.json()["error"], "code": 412, "type": "PRECONDITION_FAILED"}
    assert Thing.objects.get(pk=thing.pk).name == "First edit"
    weak = mine.patch(f"/things/{thing.pk}/", {"name": "Weak"}, format="json", HTTP_IF_MATCH=f"W/{new_etag}")
    assert weak.status_code == 412  # If-Match compares strongly
    for header in (new_etag, "*"):
        assert mine.patch(f"/things/{thing.pk}/", {"description": header}, format="json",
                          HTTP_IF_MATCH=header).status_code == 200
        new_etag = _etag(mine.get(f"/things/{thing.pk}/"))
    assert mine.patch(f"/things/{thing.pk}/", {"name": "No header"}, format="json").status_code == 200


def test_delete_with_a_stale_if_match_is_refused_with_412(caches, client_for, owner, thing):
    mine = client_for(owner)
    etag = _etag(mine.get(f"/things/{thing.pk}/"))
    assert mine.patch(f"/things/{thing.pk}/", {"name": "Edited"}, format="json").status_code == 200
    refused = mine.delete(f"/things/{thing.pk}/", HTTP_IF_MATCH=etag)
    assert refused.status_code == 412 and refused.json()["type"] == "PRECONDITION_FAILED"
    assert Thing.objects.filter(pk=thing.pk).exists()
    current = _etag(mine.get(f"/things/{thing.pk}/"))
    assert mine.delete(f"/things/{thing.pk}/", HTTP_IF_MATCH=current).status_code == 200
    assert not Thing.objects.filter(pk=thing.pk).exists()


def test_if_match_on_someone_elses_thing_keeps_the_matrix(caches, api, thing):
    assert api.patch(f"/things/{thing.pk}/", {"name": "x"}, format="json", HTTP_IF_MATCH='"1-00"').status_code == 403
    assert api.delete(f"/things/{thing.pk}/", HTTP_IF_MATCH='"1-00"').status_code == 403


def test_json_p_of_a_thing_carries_no_etag_and_is_never_304(caches, api, thing):
    """A JSON-P answer is a script that calls the client's function, not the Thing's JSON: the Thing's
    ETag does not name it, and an If-None-Match naming that ETag still gets the script."""
    etag = _etag(api.get(f"/things/{thing.pk}/"))
    script = api.get(f"/things/{thing.pk}/?callback=cb", HTTP_IF_NONE_MATCH=etag)
    assert script.status_code == 200 and script.content.startswith(b"/**/cb(")
    assert "ETag" not in script.headers


def test_tag_marks_find_every_tag_object_a_kept_answer_holds_and_none_in_spec_shapes():
    from apps.things.bodycache import tag_marks

    tag = {"name": "hinge", "tag": "hinge", "url": "u", "count": 3, "things_url": "t", "absolute_url": "/tag:hinge"}
    other = {**tag, "name": "bolt", "count": 1}
    body = {"tags": [tag], "ancestors": [{"id": 1, "tags": [other]}], "creator": {"name": "x"}}
    assert tag_marks(body) == (("bolt", 1), ("hinge", 3))
    assert tag_marks([{"id": 1, "tags": [tag]}, {"id": 2, "tags": []}]) == (("hinge", 3),)
    spec_body = {"tags": "https://api/things/1/tags", "ancestors": "https://api/things/1/ancestors"}
    assert tag_marks(spec_body) == () and tag_marks([{"id": 1, "name": "short"}]) == ()
