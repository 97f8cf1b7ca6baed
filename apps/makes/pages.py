"""Makes on the site (session login, CSRF): the make's page at its `public_url` (/make:<id>), the Thing
page's makes with "I made one", and the make's writes (description, like, delete).

"I made one" is the upload flow of spec §4.10 as POST /things/{id}/copies runs it: the page asks for the
signed form of the photo, the browser posts the bytes straight to the store, the page finalizes, and the
make is created at finalize with that photo (so an abandoned upload leaves no empty make).
"""

from django import forms
from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from apps.accounts.links import user_public_url
from apps.accounts.profiles import ProfileTab, profile_tab_register
from apps.core.domain.exceptions import DomainError, NotAuthenticated, NotFound, PermissionDenied
from apps.core.site.sections import PageSection, page_section_register, page_sections
from apps.core.site.pages import LimitedCharField, done, json_body, login_required_page, refused
from apps.makes import links, rules, selectors, services
from apps.makes.models import DESCRIPTION_MAX_LENGTH
from apps.things.links import thing_public_url
from apps.uploads import links as upload_links
from apps.uploads.files import selectors as upload_selectors
from apps.uploads.files import services as upload_services
from apps.uploads.flow.services import upload_descriptor

THING_PAGE_MAKES = 8


class MakeDescriptionForm(forms.Form):
    description = LimitedCharField(
        required=False, max_length=DESCRIPTION_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 4})
    )


# --- registrations: the Thing page's makes, the profile's tab (the search type: apps.py) ----------


def makes_section(*, request, target, shared):
    thing = target
    makes = list(selectors.make_list_for_thing(thing=thing, viewer=request.user)[:THING_PAGE_MAKES])
    return {
        "makes": makes,
        "count": thing.make_count,
        "can_make": request.user.is_authenticated and not rules.make_create_blockers(thing),
        "signed_in": request.user.is_authenticated,
        "upload_url": f"/thing:{thing.pk}/makes/upload",
        "why_not": " ".join(rules.make_create_blockers(thing)),
    }


def register() -> None:
    page_section_register(
        PageSection("thing", "makes", "main", "makes/_section.html", makes_section, order=50)
    )
    profile_tab_register(
        ProfileTab(
            slug="makes",
            label="Makes",
            template="makes/_make_grid.html",
            listing=lambda *, owner, viewer: selectors.make_list_for_user(owner=owner, viewer=viewer),
            order=20,
            empty="No makes posted yet.",
            counted_as="make_count",
        )
    )


# --- the make's page -------------------------------------------------------------------------------------


def _get_or_404(request, make_id):
    try:
        return selectors.make_get_for_page(make_id, viewer=request.user)
    except NotFound:
        raise Http404 from None


def _display_url(image) -> str:
    """The large display size (1200×900) when rendered, else the original."""
    for size in ("large", "medium"):
        sizes = upload_links.image_sizes(image.sizes, type="display", size=size)
        if sizes:
            return sizes[0]["url"]
    return upload_links.store_url(image.key)


def _image_row(make, image, *, is_creator: bool) -> dict:
    """A photo as the page shows it; one still processing past settings.PROCESSING_STALLED_SECONDS is
    `stalled`, with the error and, for its maker, "Try again" (issue 23)."""
    stalled = upload_selectors.processing_is_stalled(image)
    return {
        "name": image.name,
        "url": _display_url(image),
        "status": "stalled" if stalled else image.status,
        "label": "not processed" if stalled else image.status,
        "error": upload_selectors.processing_error_of(image),
        "retry": f"/make:{make.pk}/images/{image.pk}/retry" if stalled and is_creator else "",
    }


def make_page(request, make_id):
    """404 for anything the visitor may not see (a hidden make, or one of a draft Thing not theirs)."""
    make = _get_or_404(request, make_id)
    is_creator = rules.make_is_creator(request.user, make)
    images = [_image_row(make, image, is_creator=is_creator) for image in make.image_list]
    context = {
        "make": make,
        "thumbnail": links.make_thumbnail_url(make),
        "images": images,
        "thing_url": thing_public_url(make.thing_id),
        "creator_url": user_public_url(make.creator),
        "is_creator": is_creator,
        "can_like": request.user.is_authenticated and not rules.make_like_blockers(request.user, make),
        "form": MakeDescriptionForm(initial={"description": make.description}) if is_creator else None,
        # The conversation under the make (spec §4.4) is apps.comments' section.
        "sections": page_sections("make", request=request, target=make),
    }
    return render(request, "makes/make_detail.html", context)


# --- writes -----------------------------------------------------------------------------------------------


@login_required_page
@require_POST
def make_image_retry(request, make_id: int, image_id: int):
    """"Try again" on a photo of one's make whose processing stalled (issue 23)."""
    make = _own_or_404(request, make_id)
    image = next((image for image in make.image_list if image.pk == image_id), None)
    if image is None:
        raise Http404
    queued = upload_services.processing_retry(record=image)
    message = "The photo is queued for processing again." if queued else "The photo is not stalled."
    return done(request, message=message, data={"queued": queued}, next_url=links.make_public_url(make.pk))


@login_required_page
@require_POST
def make_upload_start(request, thing_id: int):
    """POST {filename}: "I made one": the signed form of the photo a new make starts with (JSON)."""
    try:
        thing = selectors.thing_get_makeable(thing_id, viewer=request.user)
    except (NotFound, NotAuthenticated, PermissionDenied):
        raise Http404 from None
    filename = json_body(request).get("filename")
    try:
        upload = services.make_upload_start(
            thing=thing, owner=request.user, filename=filename if isinstance(filename, str) else ""
        )
    except DomainError as exc:
        return refused(request, exc, next_url=thing_public_url(thing.pk))
    return JsonResponse(
        {
            "ok": True,
            "upload_id": upload.pk,
            "name": upload.filename,
            "kind": "image",
            **upload_descriptor(upload=upload),
        }
    )


def _own_or_404(request, make_id):
    make = _get_or_404(request, make_id)
    if not rules.make_can_edit(request.user, make):
        raise Http404
    return make


@login_required_page
@require_POST
def make_edit(request, make_id: int):
    """The creator's description of their make (spec §4.4 PATCH)."""
    make = _own_or_404(request, make_id)
    form = MakeDescriptionForm(request.POST)
    if form.is_valid():
        services.make_update(make=make, data=form.cleaned_data)
        return done(request, message="Description saved.", next_url=f"/make:{make.pk}")
    messages.error(request, f"A description has at most {DESCRIPTION_MAX_LENGTH} characters.")
    return redirect(f"/make:{make.pk}")


@login_required_page
@require_POST
def make_like(request, make_id: int):
    make = _get_or_404(request, make_id)
    unlike = request.POST.get("action") == "unlike"
    try:
        (services.make_unlike if unlike else services.make_like)(user=request.user, make=make)
    except DomainError as exc:
        return refused(request, exc, next_url=f"/make:{make.pk}")
    state = _get_or_404(request, make_id)
    return done(
        request,
        message="Removed from your likes." if unlike else "Added to your likes.",
        data={"like_count": state.like_count, "is_liked": bool(state.is_liked)},
        next_url=f"/make:{make.pk}",
    )


@login_required_page
@require_POST
def make_delete(request, make_id: int):
    make = _own_or_404(request, make_id)
    services.make_delete(make=make)
    messages.success(request, "Your make was deleted.")
    return redirect(thing_public_url(make.thing_id))
