"""Issue 22 #5: `is_private` means a Thing is its creator's alone. To anyone else (strangers, anonymous
visitors, staff) it does not exist: 404 on the API detail and the site page, absent from /newest/,
/popular/, /featured/, search, category and user lists. Its creator keeps seeing it everywhere their own
drafts show (the detail, their own Things list, their library search). Run with the caches off and on
(the read path's cached bodies and kept pages must agree)."""
import pytest
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.things.hooks import thing_reindex
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db

WORD = "quokkaplate"


def _make_private(thing) -> None:
    thing.is_private = True
    thing.save(update_fields=["is_private"])  # the admin's change form…
    thing_reindex(thing_ids=[thing.pk])  # …and its save_related (the search row follows)


def _ids(response) -> set[int]:
    if response.status_code == 404:
        return set()
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()}


def _public_paths(thing) -> list[str]:
    return ["/newest/", "/popular/", "/featured/", f"/search/{WORD}/", f"/categories/{thing.category.slug}/things",
            f"/users/{thing.creator.username}/things"]


def test_a_private_thing_is_gone_for_everyone_but_its_creator(caches, client_for, client, other_user):
    owner = other_user
    stranger = UserFactory()
    staff = UserFactory(is_staff=True)
    thing = ThingFactory(creator=owner, name=f"A {WORD}", category=category("replacement-parts"))
    Thing.objects.filter(pk=thing.pk).update(is_featured=True, featured_at=timezone.now())
    thing_reindex(thing_ids=[thing.pk])
    api, mine = client_for(stranger), client_for(owner)
    for path in _public_paths(thing):  # listed while public (and, caches on, kept)
        assert thing.pk in _ids(api.get(path)), path
    assert api.get(f"/things/{thing.pk}/").status_code == 200

    _make_private(thing)

    for who in (api, client_for(staff)):
        assert who.get(f"/things/{thing.pk}/").status_code == 404
        assert who.get(f"/things/{thing.pk}/").status_code == 404  # the cached path too
        for path in _public_paths(thing):
            assert thing.pk not in _ids(who.get(path)), path
    assert client.get(f"/thing:{thing.pk}").status_code == 404  # anonymous site page
    client.force_login(stranger)
    assert client.get(f"/thing:{thing.pk}").status_code == 404
    # The creator still sees it: detail, site page, their own list and library search.
    body = mine.get(f"/things/{thing.pk}/")
    assert body.status_code == 200 and body.json()["is_private"] is True
    assert thing.pk in _ids(mine.get(f"/users/{owner.username}/things"))
    assert thing.pk in _ids(mine.get(f"/search/{WORD}/library"))
    client.force_login(owner)
    assert client.get(f"/thing:{thing.pk}").status_code == 200


def test_a_private_thing_made_public_again_returns(caches, client_for, other_user):
    thing = ThingFactory(creator=other_user, name=f"A {WORD}", category=category("replacement-parts"))
    _make_private(thing)
    api = client_for(UserFactory())
    assert api.get(f"/things/{thing.pk}/").status_code == 404
    assert thing.pk not in _ids(api.get("/newest/"))
    thing.is_private = False
    thing.save(update_fields=["is_private"])
    thing_reindex(thing_ids=[thing.pk])
    assert api.get(f"/things/{thing.pk}/").status_code == 200
    assert thing.pk in _ids(api.get("/newest/"))
    assert thing.pk in _ids(api.get(f"/search/{WORD}/"))
