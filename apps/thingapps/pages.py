"""Site endpoints of the iframe SDK host (spec §4.11): session login, CSRF on every POST, never the API.

- `launch` / `verify`: small JSON endpoints the host script on the Thing page calls (same origin).
- `authorize`: the consent step, on the OAuth consent page (oauth/authorize.html).
- the dialogs: pages the host shows in its modal, in a same-origin frame; each ends by posting a
  result object to the host (static/thingapps/dialog.js), which hands it to the app's callback.
"""

import functools
import json
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_http_methods, require_POST

from apps.core.pipeline.cors import origin_of
from apps.core.domain.exceptions import DomainError, NotFound
from apps.core.pipeline.views import json_error
from apps.core.site.pages import json_body
from apps.oauth import rules as oauth_rules
from apps.oauth import selectors as oauth_selectors
from apps.oauth import services as oauth_services
from apps.oauth.services import ApplicationUserLimitReached
from apps.thingapps import rules, selectors, services
from apps.thingapps.forms import ThingSaveForm, thing_save_initial
from apps.things import links as thing_links
from apps.things.selectors import thing_get_own
from apps.uploads.links import file_thumbnail_url, formatted_size

DOCS_IMAGE_DIR = settings.BASE_DIR / "docs" / "img"


def _domain_error(exc: DomainError):
    return json_error(exc.status_code, exc.message, exc.error_type)


def _unauthenticated():
    return json_error(401, "Unauthorized", "UNAUTHORIZED")


def _thing_page_url(thing_id: int, client_id: str | None = None) -> str:
    url = reverse("thing-page", args=[thing_id])
    return url + ("?" + urlencode({"app": client_id}) if client_id else "")


# --- the host's JSON endpoints -----------------------------------------------------------------------


@never_cache
@require_POST
def launch(request):
    """POST /thing-apps/launch {client_id, thing_id}: the iframe URL with a token for the user, or
    where to authorize the app first."""
    if not request.user.is_authenticated:
        return _unauthenticated()
    data = json_body(request)
    try:
        application = selectors.thing_app_get(
            data.get("client_id"), site_urls=selectors.site_urls_for(request)
        )
        thing = selectors.dialog_thing_get(data.get("thing_id"), viewer=request.user)
        launched = services.thing_app_launch(application=application, user=request.user, thing=thing)
    except services.AuthorizationRequired:
        query = urlencode({"client_id": application.client_id, "thing_id": thing.pk})
        return JsonResponse(
            {
                "status": "authorization_required",
                "authorize_url": reverse("thingapps:authorize") + "?" + query,
            }
        )
    except DomainError as exc:
        return _domain_error(exc)
    return JsonResponse(
        {
            "status": "ok",
            "client_id": application.client_id,
            "name": application.name,
            "origin": origin_of(application.application_url),
            "thing_id": thing.pk,
            "access_token": launched.access_token,
            "expires_in": launched.expires_in,
            "src": launched.src,
            "sandbox": rules.IFRAME_SANDBOX,
        }
    )


@never_cache
@require_POST
def verify(request):
    """POST /thing-apps/verify {client_id, access_token}: whether a token in an app's message is a live
    token of that app for the signed-in user (the host checks tokens it did not issue itself here)."""
    if not request.user.is_authenticated:
        return _unauthenticated()
    data = json_body(request)
    client_id = data.get("client_id")
    valid = isinstance(client_id, str) and selectors.host_token_belongs(
        token=data.get("access_token"), client_id=client_id, user=request.user
    )
    return JsonResponse({"valid": valid})


# --- the consent step ---------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def authorize(request):
    """/thing-apps/authorize?client_id=&thing_id=: "authorize once": the OAuth consent page; once
    allowed, back to the Thing page, which opens the app."""
    try:
        application = selectors.thing_app_get(
            request.GET.get("client_id"), site_urls=selectors.site_urls_for(request)
        )
        thing = selectors.dialog_thing_get(request.GET.get("thing_id"), viewer=request.user)
    except NotFound:
        raise Http404 from None
    if request.method == "GET":
        already = oauth_selectors.application_user_is_counted(application=application, user=request.user)
        if already:
            return redirect(_thing_page_url(thing.pk, application.client_id))
        scopes = settings.OAUTH2_PROVIDER["SCOPES"]
        context = {
            "application": application,
            "owner": application.user,
            "user_limit": oauth_rules.application_user_limit(),
            "scopes_descriptions": [scopes[name] for name in settings.OAUTH2_PROVIDER["DEFAULT_SCOPES"]],
            "form": None,
        }
        return render(request, "oauth/authorize.html", context)
    if not request.POST.get("allow"):
        messages.info(request, f"“{application.name}” was not authorized.")
        return redirect(_thing_page_url(thing.pk))
    try:
        oauth_services.authorization_grant(application=application, user=request.user)
    except ApplicationUserLimitReached:  # only unapproved apps have a limit; kept for safety
        raise Http404 from None
    return redirect(_thing_page_url(thing.pk, application.client_id))


# --- dialogs --------------------------------------------------------------------------------------------


def _dialog_result(request, result: dict, *, message: str = "", status: int = 200):
    """The dialog's last page: it posts `result` to the host, which hands it to the app's callback."""
    return render(
        request, "thingapps/dialog_result.html", {"result": result, "message": message}, status=status
    )


def _dialog_error(request, exc: DomainError):
    result = {"status": "error", "error": exc.message, "type": exc.error_type}
    return _dialog_result(request, result, message=exc.message, status=exc.status_code)


def dialog_view(methods=("GET",)):
    """A dialog page: framed by the host only (same origin), never cached, signed-in users only (an
    expired session ends the dialog with an error result instead of a login page in the frame)."""

    def decorate(view):
        @xframe_options_sameorigin
        @never_cache
        @require_http_methods(list(methods))
        @functools.wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return _dialog_result(
                    request, {"status": "error", "error": "Unauthorized", "type": "UNAUTHORIZED"}, status=401
                )
            try:
                return view(request, *args, **kwargs)
            except DomainError as exc:
                return _dialog_error(request, exc)

        return wrapped

    return decorate


def _thing_rows(things, *, make_result) -> list[dict]:
    return [
        {
            "thing": thing,
            "thumbnail": thing_links.thing_thumbnail_url(thing),
            "result": json.dumps(make_result(thing)),
        }
        for thing in things
    ]


def _page(request, object_list):
    return Paginator(object_list, rules.DIALOG_PAGE_SIZE).get_page(request.GET.get("page"))


def _pager_query(request) -> str:
    """The dialog's query string without `page`, ready for `?<this>page=N`."""
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode() + "&" if query else ""


@dialog_view()
def file_select(request):
    """file_select {thing_id, extension}: pick one of the Thing's files → {thing_id, file_id}."""
    thing = selectors.dialog_thing_get(request.GET.get("thing_id"), viewer=request.user)
    extensions = rules.extension_list_parse(request.GET.get("extension"))
    page = _page(request, selectors.dialog_file_list(thing=thing, viewer=request.user, extensions=extensions))
    rows = [
        {
            "file": file,
            "size": formatted_size(file.size),
            "thumbnail": file_thumbnail_url(file),
            "result": json.dumps({"status": "ok", "thing_id": thing.pk, "file_id": file.pk}),
        }
        for file in page
    ]
    context = {
        "dialog": "file_select",
        "thing": thing,
        "extensions": extensions,
        "page": page,
        "rows": rows,
        "pager_query": _pager_query(request),
    }
    return render(request, "thingapps/dialog_file_select.html", context)


@dialog_view()
def thing_select(request):
    """thing_select: pick one of the user's Things (designed, made, collected or liked) → {thing_id}."""
    filter_name = request.GET.get("filter")
    if filter_name not in rules.THING_SELECT_FILTERS:
        filter_name = rules.THING_SELECT_FILTERS[0]
    page = _page(request, selectors.dialog_thing_select_list(user=request.user, filter_name=filter_name))
    context = {
        "dialog": "thing_select",
        "filter": filter_name,
        "filters": rules.THING_SELECT_FILTERS,
        "page": page,
        "pager_query": _pager_query(request),
        "rows": _thing_rows(page, make_result=lambda thing: {"status": "ok", "thing_id": thing.pk}),
    }
    return render(request, "thingapps/dialog_thing_select.html", context)


@dialog_view()
def thing_search(request):
    """thing_search {q}: search published Things, the term pre-filled → {thing_id}."""
    term = request.GET.get("q", "").strip()[: rules.SEARCH_TERM_MAX_LENGTH]
    page = _page(request, selectors.dialog_thing_search(term=term, viewer=request.user))
    context = {
        "dialog": "thing_search",
        "q": term,
        "page": page,
        "pager_query": _pager_query(request),
        "rows": _thing_rows(page, make_result=lambda thing: {"status": "ok", "thing_id": thing.pk}),
    }
    return render(request, "thingapps/dialog_thing_search.html", context)


@dialog_view(methods=("GET", "POST"))
def thing_save(request):
    """thing_save {id, name, description, category, tags, license, is_published, is_wip}: a Thing form
    → {thing: <body of POST /things/ or PATCH /things/{id}/>, is_published, id (when editing)}.

    Opened by GET (short parameters) or by a POST with `step=prefill` (the host posts long texts so
    they never hit a URL length limit); a POST with `step=save` validates and ends the dialog.
    """
    params = request.POST if request.method == "POST" else request.GET
    thing_id = params.get("id") or None
    thing = None
    if thing_id is not None:
        number = selectors.id_parse(thing_id)
        if number is None:
            raise NotFound()
        thing = thing_get_own(number, viewer=request.user, detail=False)
    if request.method == "POST" and params.get("step") == "save":
        form = ThingSaveForm(request.POST)
        if form.is_valid():
            result = {
                "status": "ok",
                "thing": form.thing_body(),
                "is_published": form.cleaned_data["is_published"],
            }
            if thing is not None:
                result["id"] = thing.pk
            return _dialog_result(request, result, message="Saved.")
        status = 400
    else:
        form = ThingSaveForm(initial=thing_save_initial(thing=thing, params=params, user=request.user))
        status = 200
    context = {"dialog": "thing_save", "form": form, "thing": thing}
    return render(request, "thingapps/dialog_thing_save.html", context, status=status)


# --- docs -----------------------------------------------------------------------------------------------


def docs_image(request, name: str):
    """/developers/docs/img/<name>.png: the screenshots docs/thing-apps.md shows (docs/img/)."""
    path = DOCS_IMAGE_DIR / f"{name}.png"
    if not path.is_file():
        raise Http404
    response = FileResponse(path.open("rb"), content_type="image/png")
    response["Cache-Control"] = "public, max-age=3600"
    return response


# --- the Thing page's section ----------------------------------------------------------------------------


def thing_apps_section(*, request, target, shared):
    """spec §4.11: the Thing apps a signed-in user can open here (none, and no query, for visitors)."""
    apps = selectors.thing_app_list_for_viewer(viewer=request.user, site_urls=selectors.site_urls_for(request))
    return {"thing_apps": apps} if apps else None


def register_sections() -> None:
    from apps.core.site.sections import PageSection, page_section_register

    page_section_register(
        PageSection("thing", "thing-apps", "main", "thingapps/host.html", thing_apps_section, order=35)
    )
