"""Collections on the site (session login, CSRF): the collection page at its `absolute_url`
(/collection:<id>, GET only), creating, renaming and deleting one, collecting a Thing from its page
and taking it out again. The same selectors and services as spec §4.5's endpoints, with
`application=None`: the user's own session is not limited by the per-app rules, and a collection made on
the site can be changed by no app (docs/decisions.md: Collections).
"""

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from apps.accounts.links import user_public_url
from apps.accounts.profiles import ProfileTab, profile_tab_register
from apps.core.domain.exceptions import DomainError, NotFound, ValidationFailed
from apps.core.site.pages import LimitedCharField, PAGE_SIZE, done, login_required_page, refused
from apps.things.links import thing_public_url
from apps.core.site.sections import PageSection, page_section_register
from apps.thingcollections import rules, selectors, services
from apps.thingcollections.models import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH


class CollectionForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX_LENGTH)
    description = LimitedCharField(
        required=False, max_length=DESCRIPTION_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 3})
    )


def collection_url(collection) -> str:
    return f"/collection:{collection.pk}"


def _with_thumbnails(items, *, viewer):
    return selectors.collection_attach_thumbnails(items, viewer=viewer)


# --- registrations: the Thing page's "collect", the profile's tab (the search type: apps.py) ------


def collect_section(*, request, target, shared):
    thing = target
    if not request.user.is_authenticated:
        return {"signed_in": False}
    collections = list(selectors.collection_list_for_picker(owner=request.user, thing_id=thing.pk))
    return {
        "signed_in": True,
        "collections": collections,
        "in_any": any(c.has_thing for c in collections),
        "post_url": f"/thing:{thing.pk}/collect",
        "name_max_length": NAME_MAX_LENGTH,
    }


def register() -> None:
    page_section_register(
        PageSection(
            "thing", "collect", "actions", "thingcollections/_collect.html", collect_section, order=20
        )
    )
    profile_tab_register(
        ProfileTab(
            slug="collections",
            label="Collections",
            template="thingcollections/_collection_grid.html",
            listing=lambda *, owner, viewer: selectors.collection_list_for_user(owner=owner, viewer=viewer),
            prepare=_with_thumbnails,
            order=30,
            empty="No collections yet.",
            counted_as="collection_count",
        )
    )


# --- pages ------------------------------------------------------------------------------------------------


def _page_of(request, things, *, count: int):
    """A page of the collection's Things; its count is the collection's own `thing_count` (the same
    visible Things, counted in the collection's query), so the page costs no COUNT query of its own."""
    paginator = Paginator(things, PAGE_SIZE)
    paginator.count = count  # shadows the paginator's cached property
    return paginator.get_page(request.GET.get("page"))


def _get_or_404(request, collection_id):
    try:
        return selectors.collection_get(collection_id, viewer=request.user)
    except NotFound:
        raise Http404 from None


def _own_or_404(request, collection_id):
    collection = _get_or_404(request, collection_id)
    if not rules.collection_can_edit(request.user, collection, application=None):
        raise Http404
    return collection


@require_safe
def collection_page(request, collection_id: int):
    """/collection:<id>: every collection is public; its Things are those the visitor may see."""
    collection = _get_or_404(request, collection_id)
    sort = request.GET.get("sort") if request.GET.get("sort") in selectors.SORTS else "date"
    things = selectors.collection_list_things(collection=collection, viewer=request.user, sort=sort)
    is_owner = rules.collection_can_edit(request.user, collection, application=None)
    context = {
        "collection": collection,
        "page": _page_of(request, things, count=collection.thing_count),
        "sort": sort,
        "is_owner": is_owner,
        "form": CollectionForm(initial={"name": collection.name, "description": collection.description})
        if is_owner
        else None,
        "creator_url": user_public_url(collection.creator),
    }
    return render(request, "thingcollections/collection.html", context)


@login_required_page
@require_http_methods(["GET", "POST"])
def collection_new(request):
    """/account/collections/new: a new, empty collection of the user's."""
    form = CollectionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        collection = services.collection_create(creator=request.user, **form.cleaned_data)
        messages.success(request, f"Collection “{collection.name}” created.")
        return redirect(collection_url(collection))
    return render(
        request, "thingcollections/collection_new.html", {"form": form}, status=400 if form.errors else 200
    )


@login_required_page
@require_POST
def collection_edit(request, collection_id: int):
    collection = _own_or_404(request, collection_id)
    form = CollectionForm(request.POST)
    if not form.is_valid():
        errors = {name: [str(m) for m in msgs] for name, msgs in form.errors.items()}
        return refused(
            request,
            ValidationFailed("A collection needs a name.", errors=errors),
            next_url=collection_url(collection),
        )
    services.collection_update(collection=collection, user=request.user, data=form.cleaned_data)
    return done(request, message="Collection saved.", next_url=collection_url(collection))


@login_required_page
@require_POST
def collection_delete(request, collection_id: int):
    collection = _own_or_404(request, collection_id)
    services.collection_delete(collection=collection, user=request.user)
    messages.success(request, f"Collection “{collection.name}” deleted.")
    return redirect(user_public_url(request.user) + "/collections")


@login_required_page
@require_POST
def collection_remove_thing(request, collection_id: int, thing_id: int):
    """Take a Thing out of one's collection (from the collection page or the Thing page's dialog)."""
    collection = _own_or_404(request, collection_id)
    try:
        services.collection_remove_thing(collection=collection, thing_id=thing_id, user=request.user)
    except DomainError as exc:
        return refused(request, exc, next_url=collection_url(collection))
    return done(request, message=f"Removed from “{collection.name}”.", next_url=collection_url(collection))


@login_required_page
@require_POST
def thing_collect(request, thing_id: int):
    """Collect a Thing the visitor may see: into one of their collections (`collection_id`), or into a
    new one named `new_name`, created on the way."""
    back = thing_public_url(thing_id)
    try:
        thing = selectors.thing_get_collectable(thing_id, viewer=request.user)
        new_name = (request.POST.get("new_name") or "").strip()
        if new_name:
            form = CollectionForm({"name": new_name})
            if not form.is_valid():
                raise ValidationFailed(f"A collection name has at most {NAME_MAX_LENGTH} characters.")
            collection = services.collection_create(creator=request.user, name=form.cleaned_data["name"])
        else:
            collection = selectors.collection_get_own(request.POST.get("collection_id"), viewer=request.user)
        services.collection_add_thing(collection=collection, thing=thing, user=request.user)
    except NotFound:
        raise Http404 from None
    except DomainError as exc:
        return refused(request, exc, next_url=back)
    return done(
        request,
        message=f"Added to “{collection.name}”.",
        data={"collection_id": collection.pk, "collection_url": collection_url(collection)},
        next_url=back,
    )
