"""What can be reported, and how each kind is found, named, linked, hidden and shown again.

Hiding goes through core.moderation (the row, the reason, the moderator) and then the owning app's
service that keeps what hiding changes (counters, search rows, cached bodies): the same two steps as
the admin's "Hide with reason" action of that model.
"""
from dataclasses import dataclass
from typing import Any, Callable

from apps.accounts.links import user_public_url
from apps.accounts.models import User
from apps.core.pipeline.api import site_url
from apps.comments import services as comment_services
from apps.comments.models import Comment
from apps.groups.links import topic_path
from apps.groups.models import GroupTopic
from apps.makes import services as make_services
from apps.makes.links import make_public_url
from apps.makes.models import Make
from apps.reports.models import Report
from apps.things import services as thing_services
from apps.things.links import thing_public_url
from apps.things.models import Thing


@dataclass(frozen=True)
class ReportKind:
    name: str
    model: Any  # a model class
    owner: Callable  # item → the member responsible (or None)
    title: Callable  # item → a short text naming it
    url: Callable  # item → its page on the site
    after_hiding: Callable | None = None  # item → keep counters, search rows, caches (None: not hideable)

    @property
    def label(self) -> str:
        return str(self.model._meta.verbose_name)


def _comment_url(comment) -> str:
    if comment.thing_id:
        return thing_public_url(comment.thing_id) + f"#comment-{comment.pk}"
    if comment.make_id:
        return make_public_url(comment.make_id) + f"#comment-{comment.pk}"
    if comment.topic_id:
        return _topic_url(comment.topic) + f"#comment-{comment.pk}"
    return site_url("")


def _topic_url(topic) -> str:
    return site_url(topic_path(topic.group, topic.pk))


KINDS: dict[str, ReportKind] = {
    Report.Kind.THING: ReportKind(
        "thing", Thing, lambda t: t.creator, lambda t: t.name, lambda t: thing_public_url(t.pk),
        after_hiding=lambda t: thing_services.thing_hidden_changed(thing=t),
    ),
    Report.Kind.COMMENT: ReportKind(
        "comment", Comment, lambda c: c.user, lambda c: (c.body or "")[:80], _comment_url,
        after_hiding=lambda c: comment_services.comment_count_reconcile(comment=c),
    ),
    Report.Kind.MAKE: ReportKind(
        "make", Make, lambda m: m.creator, lambda m: f"Make of Thing {m.thing_id}", lambda m: make_public_url(m.pk),
        after_hiding=lambda m: make_services.make_hidden_changed(make=m),
    ),
    Report.Kind.TOPIC: ReportKind(
        "topic", GroupTopic, lambda t: t.user, lambda t: t.name, _topic_url,
    ),
    Report.Kind.USER: ReportKind(
        "user", User, lambda u: u, lambda u: u.username, user_public_url,
    ),
}


def kind_get(name: str) -> ReportKind | None:
    return KINDS.get(name)


def target_get(kind: ReportKind, target_id) -> Any:
    try:
        return kind.model._default_manager.filter(pk=int(target_id)).first()
    except (TypeError, ValueError, OverflowError):
        return None
