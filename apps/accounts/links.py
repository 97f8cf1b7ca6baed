"""Absolute URLs and timestamps of a user as the API shows them: one place for both user serializers."""

from datetime import UTC, datetime
from functools import cache
from typing import overload

from django.templatetags.static import static

from apps.core.pipeline.api import api_url, site_url
from apps.core.storage.presign import presigned_get_url

DEFAULT_AVATAR = "accounts/default-avatar.png"


@overload
def iso8601(value: datetime) -> str: ...
@overload
def iso8601(value: None) -> None: ...
def iso8601(value: datetime | None) -> str | None:
    """docs/decisions.md: ISO 8601 with an offset and whole seconds, e.g. `2026-11-20T12:00:00+00:00`."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="seconds")


def user_api_url(user, suffix: str = "") -> str:
    return api_url(f"users/{user.username}" + (f"/{suffix}" if suffix else ""))


def user_public_url(user) -> str:
    return site_url(f"@{user.username}")


def user_thumbnail_url(user) -> str:
    """The avatar in the object store, else the static default avatar (never empty: clients show it).
    Signed in a window, as every stored picture is (apps.core.storage.presign): the same URL, and so
    the same body, from one second to the next."""
    if user.avatar:
        return presigned_get_url(user.avatar)
    return _default_avatar_url()


@cache
def _default_avatar_url() -> str:
    # Fixed for the life of the process (static files are collected before it starts).
    return site_url(static(DEFAULT_AVATAR))


def user_cover_url(user) -> str:
    return presigned_get_url(user.cover) if user.cover else ""
