"""Site paths of a group and of a group topic (docs/site.md: `/groups/<slug>`, `/groups/<slug>/topics/<id>`):
one place for pages, serializers, notifications and reports. Site-relative; the API's absolute form is
`site_url(path)` (apps.core.pipeline.api), as `group_public_url` gives it.

Each takes the group or just its slug, so a caller holding only `(slug, topic_id)` (a batch of comments'
topics) builds the same path without loading a row: never a query here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from apps.core.pipeline.api import site_url

if TYPE_CHECKING:
    from apps.groups.models import Group


def group_path(group: Group | str) -> str:
    """The group's page: `/groups/<slug>`."""
    slug = group if isinstance(group, str) else group.slug
    return f"/groups/{slug}"


def topic_path(group: Group | str, topic_id: int, *, sub: str = "") -> str:
    """A topic's page under its group, `/groups/<slug>/topics/<id>`, or a path below it (`sub="comments"`).
    An anchor (`#comment-12`) is the caller's to append: it is not part of the path."""
    return f"{group_path(group)}/topics/{topic_id}" + (f"/{sub}" if sub else "")


def group_public_url(group: Group | str) -> str:
    """The group's site page as the API shows it (its `public_url`, in a group's answer and in a user's
    `groups`)."""
    return site_url(group_path(group))
