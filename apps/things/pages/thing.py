"""The Thing page at its `url` (/thing:<id>) and the writes made from it: like, watch, publish, delete.

Files, images, makes, comments, collections and Thing apps are sections their own apps register
(apps.core.site.sections); this module shows the Thing itself and its remixes.
"""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.accounts.links import user_public_url
from apps.core.domain.exceptions import DomainError, NotFound, RuleViolation
from apps.core.site.pages import done, login_required_page, refused
from apps.things import links, rules, selectors, services
from apps.core.site.sections import page_sections

REMIX_LIMIT = 12


def _visible_or_404(request, thing_id):
    try:
        return selectors.thing_get_for_page(thing_id, viewer=request.user)
    except NotFound:
        raise Http404 from None


def _own_or_404(request, thing_id):
    try:
        return selectors.thing_get_for_edit(thing_id, viewer=request.user)
    except NotFound:
        raise Http404 from None


def thing_page(request, thing_id):
    """/thing:<id>: published Things for everyone, a draft only for its signed-in owner; else 404
    (hidden by a moderator: 404 for everyone but staff and its owner, who is told why and may appeal)."""
    try:
        thing = selectors.thing_get_for_page(thing_id, viewer=request.user)
    except NotFound:
        hidden = selectors.thing_get_hidden_own(thing_id, viewer=request.user)
        if hidden is None:
            raise Http404 from None
        return render(request, "things/thing_hidden_owner.html", {"thing": hidden})
    viewer = request.user
    derivatives = list(selectors.thing_list_derivatives(thing=thing, viewer=viewer)[: REMIX_LIMIT + 1])
    is_owner = rules.thing_is_owner(viewer, thing)
    context = {
        "thing": thing,
        "page_url": links.thing_public_url(thing.pk),
        "creator_url": user_public_url(thing.creator),
        "tags": list(thing.tags.all()),
        "ancestors": list(selectors.thing_list_ancestors(thing=thing, viewer=viewer)[:REMIX_LIMIT]),
        "derivatives": derivatives[:REMIX_LIMIT],
        "more_derivatives": len(derivatives) > REMIX_LIMIT,
        "is_owner": is_owner,
        "can_like": viewer.is_authenticated and not rules.thing_like_blockers(viewer, thing),
        "publish_blockers": rules.thing_publish_blockers(thing)
        if is_owner and not thing.is_published
        else [],
        "sections": page_sections("thing", request=request, target=thing),
    }
    return render(request, "things/thing_detail.html", context)


@login_required_page
@require_POST
def thing_like(request, thing_id):
    """Like (or, with action=unlike, unlike) a Thing: spec §3's Like rows, through the same service."""
    thing = _visible_or_404(request, thing_id)
    back = links.thing_public_url(thing.pk)
    unlike = request.POST.get("action") == "unlike"
    try:
        if unlike:
            services.thing_unlike(user=request.user, thing=thing)
        else:
            services.thing_like(user=request.user, thing=thing)
    except DomainError as exc:
        return refused(request, exc, next_url=back)
    state = selectors.thing_like_state(thing_id=thing.pk, viewer=request.user)
    message = "Removed from your likes." if unlike else "Added to your likes."
    return done(request, message=message, data=state, next_url=back)


@login_required_page
@require_POST
def thing_watch(request, thing_id):
    """Watch or stop watching (spec §3 toggle-watch); `watching` says which."""
    thing = _visible_or_404(request, thing_id)
    watching = services.thing_toggle_watch(user=request.user, thing=thing)
    message = "You are watching this Thing." if watching else "You stopped watching this Thing."
    return done(
        request, message=message, data={"watching": watching}, next_url=links.thing_public_url(thing.pk)
    )


@login_required_page
@require_POST
def thing_publish(request, thing_id):
    """Publish one's own Thing; when it cannot be, its blockers are shown in words (spec §3)."""
    thing = _own_or_404(request, thing_id)
    try:
        services.thing_publish(thing=thing)
    except RuleViolation as exc:
        if exc.errors:
            exc.message = "This Thing cannot be published yet: " + " ".join(exc.errors)
        return refused(request, exc, next_url=f"/thing:{thing.pk}/edit")
    return done(
        request, message="Published: everyone can see it now.", next_url=links.thing_public_url(thing.pk)
    )


@login_required_page
@require_POST
def thing_delete(request, thing_id):
    """Delete one's own Thing for good (spec §4.2 DELETE), from the edit page's danger zone."""
    thing = _own_or_404(request, thing_id)
    if request.POST.get("confirm") != thing.name:
        messages.error(request, "Type the Thing's name to confirm the deletion.")
        return redirect(f"/thing:{thing.pk}/edit")
    services.thing_delete(thing=thing)
    messages.success(request, f"“{thing.name}” was deleted.")
    return redirect(user_public_url(request.user))
