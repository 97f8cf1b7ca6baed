"""Creating and editing a Thing in the browser: /new (with ?remix=<id> for "remix this") and
/thing:<id>/edit, whose file manager (uploads, images, files) is apps.uploads' "edit" section."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from apps.core.domain.exceptions import NotFound, ValidationFailed
from apps.core.site.pages import apply_errors, login_required_page
from apps.things import rules, selectors, services
from apps.things.forms import ThingForm, ids_parse, new_thing_initial, thing_initial
from apps.core.site.sections import page_sections


def _remix_sources(request, values) -> list:
    """The Things a new Thing remixes: those of `values` the user may see (others are dropped here and
    refused by the service if they come back). One query, however many."""
    ids = ids_parse(values, limit=rules.THING_MAX_ANCESTORS)
    return list(selectors.thing_list_visible(viewer=request.user).filter(pk__in=ids)) if ids else []


@login_required_page
@require_http_methods(["GET", "POST"])
def thing_new(request):
    """/new: name, texts, category, license, tags, work in progress, remix of; then the files."""
    source = request.POST.getlist("ancestors") if request.method == "POST" else request.GET.getlist("remix")
    remixes = _remix_sources(request, source)
    initial = new_thing_initial(request.user)
    if remixes and request.method == "GET":
        initial["name"] = f"Remix of {remixes[0].name}"
    form = ThingForm(request.POST or None, initial=initial, categories=selectors.category_choices())
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            thing = services.thing_create(
                creator=request.user,
                name=data["name"],
                license=data["license"],
                category=data["category"],
                description=data["description"],
                instructions=data["instructions"],
                is_wip=data["is_wip"],
                tags=data["tags"],
                ancestors=[t.pk for t in remixes],
                print_settings=form.print_settings(),
            )
        except ValidationFailed as exc:
            apply_errors(form, exc.errors)
        else:
            messages.success(request, "Your draft is saved. Add its files and images, then publish it.")
            return redirect(f"/thing:{thing.pk}/edit")
    context = {"form": form, "remixes": remixes}
    return render(request, "things/thing_new.html", context, status=400 if form.errors else 200)


@login_required_page
@require_http_methods(["GET", "POST"])
def thing_edit(request, thing_id):
    """/thing:<id>/edit: the owner's form, file manager, publish (with its blockers) and delete."""
    try:
        thing = selectors.thing_get_for_edit(thing_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    form = ThingForm(
        request.POST or None, initial=thing_initial(thing), categories=selectors.category_choices()
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.thing_update(thing=thing, data=form.changes(thing))
        except ValidationFailed as exc:
            apply_errors(form, exc.errors)
        else:
            messages.success(request, "Saved.")
            return redirect(f"/thing:{thing.pk}/edit")
    context = {
        "thing": thing,
        "form": form,
        "publish_blockers": [] if thing.is_published else rules.thing_publish_blockers(thing),
        "sections": page_sections("thing-edit", request=request, target=thing),
    }
    return render(request, "things/thing_edit.html", context, status=400 if form.errors else 200)
