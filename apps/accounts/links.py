"""Absolute URLs and timestamps of a user as the API shows them: one place for both user serializers."""

from datetime import UTC, datetime
from functools import cache
from typing import overload

from django.core.files.storage import default_storage
from django.templatetags.static import static

from apps.core.pipeline.api import api_url, site_url

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
    """The avatar in the object store, else the static default avatar (never empty: clients show it)."""
    if user.avatar:
        return default_storage.url(user.avatar)
    return _default_avatar_url()


@cache
def _default_avatar_url() -> str:
    # Fixed for the life of the process (static files are collected before it starts).
    return site_url(static(DEFAULT_AVATAR))


def user_cover_url(user) -> str:
    return default_storage.url(user.cover) if user.cover else ""
