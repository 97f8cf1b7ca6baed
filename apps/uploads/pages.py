"""Site pages of files and images (session login; the API has its own routes, token only).

- The Thing page's sections (apps.core.site.sections): the gallery with its 3D previews, the file list with
  live processing states, "download all", and the edit page's file manager.
- The upload flow of spec §4.10 for the browser: the page asks for the signed form (`…/uploads`), the
  browser posts the bytes straight to the object store (they never pass through Django), then asks the
  page to finalize (`/account/uploads/<id>/finalize`); processing follows in Celery and the page polls
  `…/files/status` until every file is live or failed.
- Downloads (one file, or the package ZIP with a "preparing…" state), and the owner's changes: delete a
  file or an image, feature an image, reorder the images.
"""

from pathlib import PurePosixPath

from botocore.exceptions import ClientError
from django.http import Http404, HttpResponseRedirect, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST, require_safe

from apps.core.domain.exceptions import DomainError, NotFound
from apps.core.site.pages import done, json_body, login_required_page, refused, wants_json
from apps.things import rules as thing_rules
from apps.core.site.sections import PageSection, page_section_register
from apps.things.selectors import thing_get_for_edit, thing_get_for_page
from apps.uploads import links, slicers, store
from apps.uploads.files import selectors, services
from apps.uploads.flow import selectors as flow_selectors
from apps.uploads.flow import services as flow_services
from apps.uploads.models import ProcessingStatus, ThingFile, Upload
from apps.uploads.packages.services import thing_package_url

# What a browser may preview in 3D: the processing writes a three.js geometry for these (processing.stl).
PENDING_STATES = {ProcessingStatus.PROCESSING}
STATUS_LABELS = {"processing": "Processing", "live": "Live", "failed": "Failed", "stalled": "Not processed"}


def _state(record) -> tuple[str, str]:
    """The state a page shows (issue 23: never silent): `stalled` for a row still processing past
    settings.PROCESSING_STALLED_SECONDS, with the error that says so; else the row's own."""
    if selectors.processing_is_stalled(record):
        return "stalled", selectors.processing_error_of(record)
    return record.status, record.processing_error


# --- rows the templates show -----------------------------------------------------------------------


def _dimensions(meta: dict) -> str:
    size = meta.get("size_mm") if isinstance(meta, dict) else None
    if not isinstance(size, dict):
        return ""
    try:
        return " × ".join(f"{float(size[axis]):.1f}" for axis in "xyz") + " mm"
    except (KeyError, TypeError, ValueError):
        return ""


def file_row(file, *, thing_id: int) -> dict:
    meta = file.geometry if isinstance(file.geometry, dict) else {}
    status, error = _state(file)
    return {
        "id": file.pk,
        "name": file.name,
        "size": links.formatted_size(file.size),
        "status": status,
        "status_label": STATUS_LABELS.get(status, status),
        "error": error,
        "retry": f"/thing:{thing_id}/files/{file.pk}/retry" if status == "stalled" else "",
        "triangles": meta.get("triangles"),
        "dimensions": _dimensions(meta),
        "thumbnail": links.file_thumbnail_url(file),
        "geometry_url": links.store_url(file.threejs_key)
        if file.threejs_key and file.status == "live"
        else "",
        "download": f"/thing:{thing_id}/files/{file.pk}/download",
        "is_live": file.status == ProcessingStatus.LIVE,
        "slicers": slicers.slicer_links(file.pk, file.name) if file.status == ProcessingStatus.LIVE else [],
    }


def image_row(image) -> dict:
    def variant(kind, size):
        found = links.image_sizes(image.sizes, type=kind, size=size)
        return found[0]["url"] if found else ""

    original = links.store_url(image.key)
    status, error = _state(image)
    return {
        "id": image.pk,
        "name": image.name,
        "status": status,
        "status_label": STATUS_LABELS.get(status, status),
        "error": error,
        "retry": f"/thing:{image.thing_id}/images/{image.pk}/retry" if status == "stalled" and image.thing_id else "",
        "featured": image.featured,
        "display": variant("display", "large") or variant("display", "medium") or original,
        "thumb": variant("thumb", "medium") or variant("thumb", "large") or original,
        "is_live": image.status == ProcessingStatus.LIVE,
    }


def _media(request, thing, shared: dict) -> dict:
    """The Thing's files and images as the viewer may see them: two queries, shared by the sections."""
    if "uploads" not in shared:
        files = [
            file_row(f, thing_id=thing.pk)
            for f in selectors.thing_file_list(thing=thing, viewer=request.user)
        ]
        # A mesh's render is an image of the Thing on the wire (docs/decisions.md: Thing images); the site
        # shows it as the model's own gallery item and file thumbnail instead, so it is not listed twice.
        images = [
            image_row(i)
            for i in selectors.thing_image_list(thing=thing, viewer=request.user)
            if i.source_file_id is None
        ]
        shared["uploads"] = {
            "files": files,
            "images": images,
            "live_files": [f for f in files if f["is_live"]],
            "settled": all(r["status"] not in PENDING_STATES for r in files + images),
            "status_url": f"/thing:{thing.pk}/files/status",
        }
    return shared["uploads"]


# --- sections of the Thing page and its edit page ------------------------------------------------------


def gallery_section(*, request, target, shared):
    thing = target
    """The images, then each mesh's interactive 3D preview (falling back to its render without WebGL)."""
    media = _media(request, thing, shared)
    images = [i for i in media["images"] if i["is_live"]]
    models = [f for f in media["files"] if f["geometry_url"]]
    return {"images": images, "models": models, "empty": not images and not models}


def files_section(*, request, target, shared):
    thing = target
    return _media(request, thing, shared)


def download_section(*, request, target, shared):
    thing = target
    media = _media(request, thing, shared)
    if not media["live_files"]:
        return None
    return {"package_url": f"/thing:{thing.pk}/package", "count": len(media["live_files"])}


def manager_section(*, request, target, shared):
    thing = target
    """The edit page's uploads: drop zone, per-file progress, images to reorder and feature, files."""
    return {**_media(request, thing, shared), "upload_url": f"/thing:{thing.pk}/uploads"}


def register_sections() -> None:
    for section in (
        PageSection(
            "thing", "uploads-gallery", "gallery", "uploads/_gallery.html", gallery_section, order=10
        ),
        PageSection(
            "thing", "uploads-download", "actions", "uploads/_download_all.html", download_section, order=40
        ),
        PageSection("thing", "uploads-files", "main", "uploads/_files_section.html", files_section, order=30),
        PageSection(
            "thing-edit", "uploads-manager", "edit", "uploads/_manager.html", manager_section, order=10
        ),
    ):
        page_section_register(section)


# --- the Thing's pages ---------------------------------------------------------------------------------


def _visible_or_404(request, thing_id):
    try:
        return thing_get_for_page(thing_id, viewer=request.user)
    except NotFound:
        raise Http404 from None


def _own_or_404(request, thing_id):
    try:
        return thing_get_for_edit(thing_id, viewer=request.user)
    except NotFound:
        raise Http404 from None


def file_download_page(request, thing_id: int, file_id: int):
    """Download a file of a Thing the visitor may see; signed-in visitors get it in their history."""
    try:
        thing = thing_get_for_page(thing_id, viewer=request.user)
        file = selectors.thing_file_get(thing=thing, file_id=file_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    return HttpResponseRedirect(services.file_download(file=file, user=request.user))


@never_cache
@require_safe
def file_open(request, file_id: int, token: str, name: str):
    """/files/<id>/open/<token>/<name>: the bytes of a live file for a slicer opened by "Open in slicer"
    (apps/uploads/slicers.py): no session, the signed token is the permission. A Thing hidden since, a
    file gone or no longer live, a bad or expired token: 404. Counted as a download (of nobody)."""
    if not slicers.file_open_token_valid(file_id, token):
        raise Http404("This link has expired: open the Thing's page again.")
    file = (ThingFile.objects.filter(pk=file_id, status=ProcessingStatus.LIVE, thing__is_hidden=False)
            .only("id", "thing_id", "key", "name", "size").first())
    if file is None:
        raise Http404
    try:
        body = store.open_stream(file.key)
    except ClientError:
        raise Http404 from None
    services.file_download(file=file, user=None)

    def chunks():
        try:
            while chunk := body.read(1 << 20):
                yield chunk
        finally:
            body.close()

    response = StreamingHttpResponse(chunks(), content_type=slicers.CONTENT_TYPES.get(
        PurePosixPath(file.name.lower()).suffix, "application/octet-stream"))
    response["Content-Disposition"] = store.content_disposition(file.name)
    response["Content-Length"] = str(file.size)
    return response


@never_cache
@require_GET
def thing_files_status(request, thing_id: int):
    """/thing:<id>/files/status: the file list (and, for the owner's edit page, the image manager) as
    rendered HTML, and whether processing has settled; the pages poll it while something processes."""
    thing = _visible_or_404(request, thing_id)
    shared: dict = {}
    media = _media(request, thing, shared)
    is_owner = thing_rules.thing_is_owner(request.user, thing)
    manage = is_owner and request.GET.get("view") == "edit"
    context = {"section": media, "thing": thing, "is_owner": is_owner, "manage": manage}
    states = {f"file:{row['id']}": {"status": row["status"], "error": row["error"]} for row in media["files"]}
    states.update(
        {f"image:{row['id']}": {"status": row["status"], "error": row["error"]} for row in media["images"]}
    )
    body = {
        "settled": media["settled"],
        "states": states,
        "files_html": render_to_string("uploads/_file_list.html", context, request=request),
    }
    if manage:
        body["images_html"] = render_to_string("uploads/_image_manager.html", context, request=request)
    return JsonResponse(body)


@never_cache
@require_GET
def thing_package_page(request, thing_id: int):
    """Download all: the package ZIP (spec §4.2 package-url) once built. While Celery builds it, a page
    that says "preparing…" and reloads itself (the site's script polls the JSON form instead)."""
    thing = _visible_or_404(request, thing_id)
    try:
        url = thing_package_url(thing=thing)
    except DomainError as exc:
        if wants_json(request):
            return JsonResponse({"status": "unavailable", "error": exc.message}, status=exc.status_code)
        raise Http404 from None
    if wants_json(request):
        return JsonResponse({"status": "ready" if url else "building", "url": url})
    if url:
        return HttpResponseRedirect(url)
    return render(request, "uploads/package_building.html", {"thing": thing}, status=202)


# --- the upload flow (spec §4.10) for the browser ----------------------------------------------------


def _descriptor(upload: Upload) -> dict:
    kind = (
        "image"
        if upload.kind in (Upload.Kind.THING_IMAGE, Upload.Kind.COPY_NEW, Upload.Kind.COPY_IMAGE)
        else "file"
    )
    return {
        "upload_id": upload.pk,
        "name": upload.filename,
        "kind": kind,
        **flow_services.upload_descriptor(upload=upload),
    }


def descriptor_response(upload: Upload) -> JsonResponse:
    """The signed form of an upload the page started (for other apps' upload pages too: makes)."""
    return JsonResponse({"ok": True, **_descriptor(upload)})


@login_required_page
@require_POST
def thing_upload_start(request, thing_id: int):
    """POST {filename}: the signed form for one file or image of one's own Thing (JSON)."""
    thing = _own_or_404(request, thing_id)
    filename = json_body(request).get("filename")
    if not isinstance(filename, str):
        filename = ""
    try:
        upload = services.thing_upload_start(owner=request.user, thing=thing, filename=filename)
    except DomainError as exc:
        return refused(request, exc, next_url=f"/thing:{thing.pk}/edit")
    return descriptor_response(upload)


@login_required_page
@require_POST
def account_image_upload_start(request, field: str):
    """POST {filename}: the signed form for one's own avatar or cover (/account/, JSON): the same
    upload flow as POST /users/{me}/avatar-image and cover-image (spec §4.1)."""
    kind = {"avatar": Upload.Kind.AVATAR, "cover": Upload.Kind.COVER}.get(field)
    if kind is None:
        raise Http404
    filename = json_body(request).get("filename")
    if not isinstance(filename, str):
        filename = ""
    try:
        upload = flow_services.upload_start(owner=request.user, kind=kind, target_id=request.user.pk, filename=filename)
    except DomainError as exc:
        return refused(request, exc, next_url="/account/")
    return descriptor_response(upload)


def _after_finalize(upload: Upload) -> dict:
    """Where the page goes on: a new make's page, else it stays (its Thing's file list follows)."""
    if upload.kind == Upload.Kind.COPY_NEW and upload.image is not None:
        return {"kind": "make", "next": f"/make:{upload.image.copy_id}"}
    if upload.file is not None:
        return {"kind": "file", "file_id": upload.file.pk, "status": upload.file.status}
    if upload.image is not None:
        return {"kind": "image", "image_id": upload.image.pk, "status": upload.image.status}
    return {"kind": upload.kind}


@login_required_page
@require_POST
def upload_finalize_page(request, upload_id: int):
    """POST: finalize one's own upload once the browser's POST to the store ended (spec §4.3). The store
    is asked whether the bytes arrived, so a failed or refused POST is reported here, not trusted."""
    try:
        flow_services.upload_finalize(upload_id=upload_id, user=request.user)
        upload = flow_selectors.upload_get_own(upload_id, owner=request.user)
    except DomainError as exc:
        if isinstance(exc, NotFound) or exc.status_code == 403:
            return JsonResponse({"ok": False, "error": "Not Found", "type": "NOT_FOUND"}, status=404)
        return JsonResponse(
            {"ok": False, "error": exc.message, "type": exc.error_type}, status=exc.status_code
        )
    return JsonResponse({"ok": True, **_after_finalize(upload)})


# --- the owner's changes ---------------------------------------------------------------------------------


def _edit_url(thing) -> str:
    return f"/thing:{thing.pk}/edit"


@login_required_page
@require_POST
def file_delete_page(request, thing_id: int, file_id: int):
    thing = _own_or_404(request, thing_id)
    try:
        file = selectors.thing_file_get(thing=thing, file_id=file_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    services.file_delete(file=file)
    return done(request, message=f"“{file.name}” was deleted.", next_url=_edit_url(thing))


@login_required_page
@require_POST
def image_delete_page(request, thing_id: int, image_id: int):
    thing = _own_or_404(request, thing_id)
    try:
        image = selectors.thing_image_get(thing=thing, image_id=image_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    services.image_delete(image=image)
    return done(request, message=f"“{image.name}” was deleted.", next_url=_edit_url(thing))


@login_required_page
@require_POST
def file_retry_page(request, thing_id: int, file_id: int):
    """"Try again" on a file whose processing stalled (issue 23): queued again, the page polls again."""
    return _retry(request, thing_id, lambda thing: selectors.thing_file_get(
        thing=thing, file_id=file_id, viewer=request.user))


@login_required_page
@require_POST
def image_retry_page(request, thing_id: int, image_id: int):
    return _retry(request, thing_id, lambda thing: selectors.thing_image_get(
        thing=thing, image_id=image_id, viewer=request.user))


def _retry(request, thing_id: int, get_record):
    """One file or image of the signed-in owner's Thing queued for processing again, if it stalled."""
    thing = _own_or_404(request, thing_id)
    try:
        record = get_record(thing)
    except NotFound:
        raise Http404 from None
    queued = services.processing_retry(record=record)
    message = f"“{record.name}” is queued for processing again." if queued else f"“{record.name}” is not stalled."
    return done(request, message=message, data={"queued": queued}, next_url=_edit_url(thing))


@login_required_page
@require_POST
def image_feature_page(request, thing_id: int, image_id: int):
    """Make an image the Thing's featured one (its thumbnail everywhere), as PATCH featured=true does."""
    thing = _own_or_404(request, thing_id)
    try:
        image = selectors.thing_image_get(thing=thing, image_id=image_id, viewer=request.user)
    except NotFound:
        raise Http404 from None
    services.image_update(image=image, featured=True)
    return done(request, message=f"“{image.name}” is the featured image now.", next_url=_edit_url(thing))


@login_required_page
@require_POST
def image_move_page(request, thing_id: int, image_id: int):
    """Move an image one place earlier (`direction=up`) or later (`down`) in the gallery."""
    thing = _own_or_404(request, thing_id)
    uploaded = selectors.thing_image_list(thing=thing, viewer=request.user).filter(source_file__isnull=True)
    ids = list(uploaded.values_list("pk", flat=True))
    if image_id not in ids:
        raise Http404
    at = ids.index(image_id)
    to = at - 1 if request.POST.get("direction") == "up" else at + 1
    if 0 <= to < len(ids):
        ids[at], ids[to] = ids[to], ids[at]
        services.image_reorder(thing=thing, image_ids=ids)
    return done(request, data={"order": ids}, next_url=_edit_url(thing))


@login_required_page
@require_POST
def image_order_page(request, thing_id: int):
    """POST {ids: [...]}: the whole gallery order at once (the edit page's drag and drop)."""
    thing = _own_or_404(request, thing_id)
    raw = json_body(request).get("ids")
    if not isinstance(raw, list) or not all(isinstance(i, int) for i in raw):
        return JsonResponse(
            {"ok": False, "error": "ids must be a list of image ids.", "type": "BAD_REQUEST"}, status=400
        )
    services.image_reorder(thing=thing, image_ids=raw)
    return done(request, data={"order": raw}, next_url=_edit_url(thing))
