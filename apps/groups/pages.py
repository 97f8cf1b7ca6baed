"""Groups on the site (session login, CSRF): the list, a group's page (members, Things, topics) at its
`public_url` (/groups/<slug>), a topic's page with its conversation, joining, leaving and posting a
topic. The same selectors and services as spec §4.8's endpoints; comments are apps.comments' section.
"""

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.core.domain.exceptions import DomainError, NotFound
from apps.core.site.sections import page_sections
from apps.core.site.pages import LimitedCharField, done, login_required_page, paginate, refused
from apps.groups import rules, selectors, services
from apps.groups.links import group_path, topic_path
from apps.groups.models import TOPIC_BODY_MAX_LENGTH, TOPIC_NAME_MAX_LENGTH
from apps.uploads.links import store_url

MEMBERS_SHOWN = 12
TOPICS_SHOWN = 20
THINGS_PER_PAGE = 12
SORT_LABELS = {
    "members": "Most members",
    "activity": "Recently active",
    "topics": "Most topics",
    "newest": "Newest",
}


class TopicForm(forms.Form):
    name = forms.CharField(label="Title", max_length=TOPIC_NAME_MAX_LENGTH)
    body = LimitedCharField(max_length=TOPIC_BODY_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 5}))


def _image(group) -> str:
    return store_url(group.image) if group.image else ""


def group_list_page(request):
    """/browse/groups: every group, by members (or activity, topics, newest), with a name search."""
    sort = request.GET.get("sort") if request.GET.get("sort") in selectors.SORTS else "members"
    search = request.GET.get("q", "").strip()[:200]
    page = paginate(request, selectors.group_list(viewer=request.user, sort=sort, search=search))
    rows = [{"group": g, "image": _image(g), "url": group_path(g)} for g in page]
    context = {"page": page, "rows": rows, "sort": sort, "sorts": SORT_LABELS, "q": search}
    return render(request, "groups/group_list.html", context)


def _group_or_404(request, slug):
    try:
        return selectors.group_get_by_slug(slug, viewer=request.user)
    except NotFound:
        raise Http404 from None


def group_page(request, slug: str):
    group = _group_or_404(request, slug)
    things = selectors.group_list_things(group=group, viewer=request.user)
    context = {
        "group": group,
        "image": _image(group),
        "members": list(selectors.group_member_list(group=group)[:MEMBERS_SHOWN]),
        "page": paginate(request, things, per_page=THINGS_PER_PAGE),
        "topics": list(selectors.group_topic_list(group=group)[:TOPICS_SHOWN]),
        "is_owner": rules.group_is_owner(request.user, group),
        "topic_form": TopicForm() if group.is_member else None,
        "follow": selectors.group_follow_state(group=group, viewer=request.user),
    }
    return render(request, "groups/group.html", context)


def topic_page(request, slug: str, topic_id: int):
    try:
        topic = selectors.group_topic_get(topic_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    if topic.group.slug.lower() != slug.lower():
        raise Http404
    context = {
        "topic": topic,
        "group": topic.group,
        "group_url": group_path(topic.group),
        # The conversation is apps.comments' section (members write, everyone reads).
        "sections": page_sections("group-topic", request=request, target=topic),
    }
    return render(request, "groups/topic.html", context)


@login_required_page
@require_POST
def group_join(request, slug: str):
    group = _group_or_404(request, slug)
    services.group_join(group=group, user=request.user)
    return done(request, message=f"Welcome to {group.name}.", next_url=group_path(group))


@login_required_page
@require_POST
def group_follow(request, slug: str):
    """POST action=follow|unfollow; JSON for the site's script: {following, count}."""
    group = _group_or_404(request, slug)
    if request.POST.get("action") == "unfollow":
        services.group_unfollow(group=group, user=request.user)
    else:
        services.group_follow(group=group, user=request.user)
    state = selectors.group_follow_state(group=group, viewer=request.user)
    message = f"You follow {group.name}." if state["following"] else f"You no longer follow {group.name}."
    return done(request, message=message, data={"following": state["following"], "count": state["count"]},
                next_url=group_path(group))


@login_required_page
@require_POST
def group_leave(request, slug: str):
    group = _group_or_404(request, slug)
    try:
        services.group_member_remove(group=group, user=request.user, member_id=request.user.pk)
    except DomainError as exc:
        return refused(request, exc, next_url=group_path(group))
    return done(request, message=f"You left {group.name}.", next_url=group_path(group))


@login_required_page
@require_POST
def topic_new(request, slug: str):
    """A new topic (members only: the service answers 403 to anyone else)."""
    group = _group_or_404(request, slug)
    form = TopicForm(request.POST)
    if not form.is_valid():
        messages.error(request, "A topic needs a title and a text.")
        return redirect(group_path(group) + "#new-topic")
    try:
        topic = services.group_topic_create(group=group, user=request.user, **form.cleaned_data)
    except DomainError as exc:
        if exc.status_code == 403:
            exc.message = "Join the group to post a topic."
        return refused(request, exc, next_url=group_path(group))
    messages.success(request, "Your topic is posted.")
    return redirect(topic_path(group, topic.pk))
