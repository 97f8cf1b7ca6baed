"""Every stored picture a body or page shows is signed by one signer (apps.core.storage.presign): avatars,
covers, apps' logos and groups' images as Things' files and images are. So a body is the same bytes from
one second to the next (its ETag is the version of what it shows: the bytes must not move without it),
the URL names the address browsers reach the store at (S3_PUBLIC_URL), and it opens the object."""
import urllib.request
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings as django_settings

from apps.accounts.links import user_cover_url, user_thumbnail_url
from apps.accounts.models import User
from apps.core.storage import presign
from apps.groups.tests.factories import GroupFactory
from apps.oauth.links import application_logo_url
from apps.oauth.tests.factories import ApplicationFactory

pytestmark = pytest.mark.django_db


class _Clock:
    """Stands in for presign's `datetime`: `now()` answers `at` (the rest is the real class's)."""

    at = datetime(2026, 11, 30, 12, 14, 59, tzinfo=UTC)

    @classmethod
    def now(cls, tz=None):
        return cls.at

    fromtimestamp = staticmethod(datetime.fromtimestamp)


@pytest.fixture
def clock(monkeypatch):
    """A clock of this test's own (a subclass: setting `at` leaves _Clock and other tests alone)."""
    own = type("TestClock", (_Clock,), {})
    monkeypatch.setattr(presign, "datetime", own)
    return own


@pytest.fixture
def pictured(user):
    """A user with an avatar and a cover, a group with an image, an app with a logo (store keys)."""
    User.objects.filter(pk=user.pk).update(avatar="avatars/9/a b.png", cover="covers/9/c.jpg")
    user.refresh_from_db()
    return {
        "user": user,
        "group": GroupFactory(image="groups/9/g.png"),
        "app": ApplicationFactory(logo="app-logos/9/l.png"),
    }


def _urls(api, pictured) -> dict:
    user, group = pictured["user"], pictured["group"]
    profile = api.get(f"/users/{user.username}/").json()
    return {
        "thumbnail": profile["thumbnail"],
        "cover_image": profile["cover_image"],
        "group image": api.get(f"/groups/{group.pk}/").json()["image"],
        "logo": application_logo_url(pictured["app"]),
        "avatar (function)": user_thumbnail_url(user),
        "cover (function)": user_cover_url(user),
    }


def test_the_bodies_are_the_same_bytes_from_one_second_to_the_next(api, pictured, clock, caches_off):
    user, group = pictured["user"], pictured["group"]
    seen = []
    for minute, second in ((0, 0), (7, 31), (14, 58), (14, 59)):  # one 15-minute window
        clock.at = datetime(2026, 11, 30, 12, minute, second, 250000, tzinfo=UTC)
        seen.append((api.get(f"/users/{user.username}/").content, api.get(f"/groups/{group.pk}/").content,
                     application_logo_url(pictured["app"])))
    assert all(bodies == seen[0] for bodies in seen)
    assert b"avatars/9/a%20b.png" in seen[0][0] and b"groups/9/g.png" in seen[0][1]


def test_each_url_is_signed_at_its_windows_start_and_valid_for_an_hour_at_least(api, pictured, clock):
    clock.at = datetime(2026, 11, 30, 12, 14, 59, tzinfo=UTC)
    for name, url in _urls(api, pictured).items():
        query = parse_qs(urlsplit(url).query)
        assert query["X-Amz-Date"] == ["20261130T120000Z"], name
        assert int(query["X-Amz-Expires"][0]) == 3600 + presign.PRESIGN_WINDOW_SECONDS, name
    clock.at = datetime(2026, 11, 30, 12, 15, 0, tzinfo=UTC)  # the next window: a new signature
    assert parse_qs(urlsplit(_urls(api, pictured)["thumbnail"]).query)["X-Amz-Date"] == ["20261130T121500Z"]


def test_the_urls_name_the_address_browsers_reach_the_store_at(api, pictured, settings):
    settings.S3_PUBLIC_URL = "https://files.example.test/"
    urls = _urls(api, pictured)
    for name, url in urls.items():
        assert url.startswith(f"https://files.example.test/{settings.S3_BUCKET}/"), name
    assert urlsplit(urls["thumbnail"]).path == f"/{settings.S3_BUCKET}/avatars/9/a%20b.png"


def test_an_avatar_url_opens_the_stored_picture(api, s3, user):
    s3.put_object(Bucket=django_settings.S3_BUCKET, Key="avatars/9/real.png", Body=b"\x89PNG-bytes")
    User.objects.filter(pk=user.pk).update(avatar="avatars/9/real.png")
    url = api.get(f"/users/{user.username}/").json()["thumbnail"]
    with urllib.request.urlopen(url) as response:
        assert response.read() == b"\x89PNG-bytes"
