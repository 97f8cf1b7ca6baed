"""Comments on the site (session login, CSRF): the threaded conversation of a Thing, a make or a group
topic, with a form to post and one to reply under each comment. The same selectors and services as the
API's `…/comments` endpoints (spec §4.6), so visibility, membership and depth rules are theirs.
"""

from django import forms
from django.http import Http404
from django.views.decorators.http import require_POST

from apps.comments import rules, selectors, services
from apps.comments.models import BODY_MAX_LENGTH
from apps.core.domain.exceptions import DomainError, NotFound, PermissionDenied, ValidationFailed
from apps.core.site.pages import LimitedCharField, done, login_required_page, refused
from apps.groups.links import topic_path
from apps.groups.selectors import group_is_member
from apps.core.site.sections import PageSection, page_section_register


class CommentForm(forms.Form):
    body = LimitedCharField(
        max_length=BODY_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": "Write something first."},
    )
    parent_id = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)


def thread(*, target, viewer) -> dict:
    """The conversation as a tree: {"roots": [...], "truncated": bool, "count": n}; each comment gets
    `thread_replies` (one query for the whole target: selectors.comment_thread_list)."""
    comments, truncated = selectors.comment_thread_list(target=target, viewer=viewer)
    children: dict[int | None, list] = {}
    for comment in comments:
        # Attributes the templates read (a page's own annotations, not model fields).
        comment.thread_replies = children.setdefault(comment.pk, [])  # type: ignore[attr-defined]
        comment.can_reply = not rules.comment_reply_blockers(comment)  # type: ignore[attr-defined]
        children.setdefault(comment.parent_id, []).append(comment)
    roots = children.get(None, [])
    return {"roots": roots, "truncated": truncated, "count": sum(1 for c in comments if not c.is_deleted)}


def comments_context(*, request, target, post_url: str, can_post: bool, why_not: str = "") -> dict:
    return {
        **thread(target=target, viewer=request.user),
        "post_url": post_url,
        "can_post": can_post and request.user.is_authenticated,
        "why_not": why_not,
        "max_length": BODY_MAX_LENGTH,
    }


def thing_comments_section(*, request, target, shared):
    return comments_context(
        request=request, target=target, post_url=f"/thing:{target.pk}/comments", can_post=True
    )


def make_comments_section(*, request, target, shared):
    return comments_context(
        request=request, target=target, post_url=f"/make:{target.pk}/comments", can_post=True
    )


def topic_comments_section(*, request, target, shared):
    """spec §4.8: everyone reads a topic's comments; the members of its group write them."""
    member = request.user.is_authenticated and group_is_member(group=target.group, user=request.user)
    return comments_context(
        request=request,
        target=target,
        post_url=topic_path(target.group, target.pk, sub="comments"),
        can_post=member,
        why_not="" if member else "Join the group to take part in its topics.",
    )


def register_sections() -> None:
    for section in (
        PageSection("thing", "comments", "main", "comments/_section.html", thing_comments_section, order=60),
        PageSection("make", "comments", "main", "comments/_section.html", make_comments_section, order=60),
        PageSection(
            "group-topic", "comments", "main", "comments/_section.html", topic_comments_section, order=60
        ),
    ):
        page_section_register(section)


# --- posting -------------------------------------------------------------------------------------------


def _post(request, target, *, back: str):
    form = CommentForm(request.POST)
    if not form.is_valid():
        message = str(form.errors["body"][0]) if "body" in form.errors else "That reply cannot be posted."
        errors = {name: [str(m) for m in messages] for name, messages in form.errors.items()}
        return refused(request, ValidationFailed(message, errors=errors), next_url=back)
    body, parent_id = form.cleaned_data["body"], form.cleaned_data["parent_id"]
    try:
        selectors.comment_target_check_writable(target, viewer=request.user)
        if parent_id is None:
            comment = services.comment_create(user=request.user, target=target, body=body)
        else:
            parent = selectors.comment_get_on_target(parent_id, target=target, viewer=request.user)
            if parent is None:
                raise ValidationFailed("The comment you replied to is gone.")
            comment = services.comment_reply(user=request.user, comment=parent, body=body)
    except PermissionDenied:
        return refused(request, PermissionDenied("Only the group's members can comment here."), next_url=back)
    except DomainError as exc:
        return refused(request, exc, next_url=back)
    anchor = f"{back}#comment-{comment.pk}"
    return done(
        request, message="Your comment is posted.", data={"id": comment.pk, "url": anchor}, next_url=anchor
    )


@login_required_page
@require_POST
def thing_comment_post(request, thing_id: int):
    """POST body (and parent_id for a reply) on a Thing the visitor may see."""
    try:
        thing = selectors.comment_target_get("thing", thing_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    return _post(request, thing, back=f"/thing:{thing.pk}")


@login_required_page
@require_POST
def make_comment_post(request, make_id: int):
    try:
        make = selectors.comment_target_get("make", make_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    return _post(request, make, back=f"/make:{make.pk}")


@login_required_page
@require_POST
def topic_comment_post(request, slug: str, topic_id: int):
    try:
        topic = selectors.comment_target_get("group_topic", topic_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    if topic.group.slug.lower() != slug.lower():
        raise Http404
    return _post(request, topic, back=topic_path(topic.group, topic.pk))


# --- the author's edit and delete ------------------------------------------------------------------------


def _comment_page(comment) -> str:
    """The page a comment is on, at the comment (where the site sends the author back)."""
    if comment.target_type == "thing":
        base = f"/thing:{comment.thing_id}"
    elif comment.target_type == "make":
        base = f"/make:{comment.make_id}"
    else:
        base = topic_path(comment.topic.group, comment.topic_id)
    return f"{base}#comment-{comment.pk}"


@login_required_page
@require_POST
def comment_edit(request, comment_id: int):
    """The author changes a comment's body (the same selector and service as PATCH /comments/{id}/:
    someone else's comment is 403, a missing or hidden one 404); the comment is then marked edited."""
    try:
        comment = selectors.comment_get_editable(comment_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    except PermissionDenied:
        return refused(request, PermissionDenied("Only its author can edit a comment."), next_url="/")
    back = _comment_page(comment)
    form = CommentForm(request.POST)
    if not form.is_valid():
        message = str(form.errors["body"][0]) if "body" in form.errors else "That comment cannot be saved."
        return refused(request, ValidationFailed(message), next_url=back)
    comment = services.comment_update(comment=comment, user=request.user, body=form.cleaned_data["body"])
    return done(request, message="Your comment is saved.",
                data={"id": comment.pk, "body_html": comment.body_html}, next_url=back)


@login_required_page
@require_POST
def comment_delete(request, comment_id: int):
    """The author (or the owner of what it is on) deletes a comment (the same selector and service as
    DELETE /comments/{id}/); moderators hide comments from the admin."""
    try:
        comment = selectors.comment_get_deletable(comment_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    except PermissionDenied:
        return refused(request, PermissionDenied("You cannot delete this comment."), next_url="/")
    back = _comment_page(comment).split("#")[0] + "#comments"
    services.comment_delete(comment=comment, user=request.user)
    return done(request, message="The comment is deleted.", data={"id": comment.pk}, next_url=back)
