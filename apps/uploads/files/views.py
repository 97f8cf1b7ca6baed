"""Endpoints of a Thing's files and images (spec §4.2), /files/{id} and its download (§4.3), and a
user's download history (§4.1).

Every Thing is fetched through apps.things.selectors (thing_get_for_viewer / thing_get_own), so the
401/403/404 matrix lives in one place; files and images add "404 when not this Thing's or not visible".
"""
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from botocore.exceptions import ClientError
from django.http import StreamingHttpResponse
from django.utils.crypto import constant_time_compare
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe
from rest_framework.response import Response

from apps.accounts.selectors import user_get_by_name
from apps.accounts.serializers import OkSerializer
from apps.core.pipeline import versions
from apps.core.pipeline.api import ok, paginated_response, parse_input, parse_patch, validated
from apps.core.pipeline.schema import THING_PARAM
from apps.core.pipeline.views import ApiView, json_error
from apps.uploads import links, store
from apps.things.selectors import thing_get_for_viewer, thing_get_own
from apps.things.serializers import ThingShortSerializer
from apps.uploads.files import selectors, services
from apps.uploads.files.serializers import (
    FileSerializer,
    ImageQueryInput,
    ImageSerializer,
    ImageStateSerializer,
    ImageUpdateInput,
)
from apps.uploads.flow.serializers import (
    FLOW,
    ThingFileUploadStartInput,
    UploadDescriptorSerializer,
    UploadStartInput,
)
from apps.uploads.flow.services import upload_descriptor

FILE_PARAM = OpenApiParameter("file_id", int, OpenApiParameter.PATH, description="A file id.")
IMAGE_PARAM = OpenApiParameter("image_id", int, OpenApiParameter.PATH, description="An image id.")
IMAGE_QUERY = [
    OpenApiParameter("type", str, enum=["thumb", "preview", "display"], description="Only this type's sizes."),
    OpenApiParameter("size", str, enum=["large", "medium", "small", "tiny"],
                     description="Only this size (needs `type`)."),
]
VISIBILITY = (
    "The Thing's matrix: unpublished and unauthenticated 401, unpublished and not owned 403, missing 404. "
    "Its owner sees files/images still processing or failed; everyone else only live ones."
)


class ThingFilesView(ApiView):
    """GET /things/{id}/files. POST starts an upload (ThingFileUploadStartView; combine(): urls.py)."""

    @extend_schema(parameters=[THING_PARAM], responses=FileSerializer(many=True), summary="List a Thing's files",
                   description=VISIBILITY)
    def get(self, request, thing_id):
        thing = thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        files = selectors.thing_file_list(thing=thing, viewer=request.user)
        return paginated_response(request, files, FileSerializer, view=self)


class ThingFileUploadStartView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        request=ThingFileUploadStartInput,
        responses=UploadDescriptorSerializer,
        summary="Start uploading a file to own Thing",
        description=FLOW + " A jpg, jpeg, png, gif or webp name makes a Thing image, another of a Thing's "
        "file types (docs/uploads.md) a Thing file; any other name is 400. Another user's Thing: 403; "
        "missing: 404.",
    )
    def post(self, request, thing_id):
        # 404/403 before 400: a caller learns nothing about input rules on someone else's Thing.
        thing = thing_get_own(thing_id, viewer=request.user)
        data = parse_input(UploadStartInput, request)
        upload = services.thing_upload_start(owner=request.user, thing=thing, filename=data["filename"])
        return Response(upload_descriptor(upload=upload, wire_version=versions.of(request)))



class ThingFileDetailView(ApiView):
    @extend_schema(parameters=[THING_PARAM, FILE_PARAM], responses=FileSerializer, summary="Get a Thing's file",
                   description=VISIBILITY + " A file of another Thing is 404.")
    def get(self, request, thing_id, file_id):
        thing = thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        file = selectors.thing_file_get(thing=thing, file_id=file_id, viewer=request.user)
        return Response(FileSerializer(file).data)

    @extend_schema(parameters=[THING_PARAM, FILE_PARAM], responses=OkSerializer, summary="Delete a Thing's file",
                   description="Owner only (403 otherwise). Irreversible: the stored objects go too.")
    def delete(self, request, thing_id, file_id):
        thing = thing_get_own(thing_id, viewer=request.user)
        file = selectors.thing_file_get(thing=thing, file_id=file_id, viewer=request.user)
        services.file_delete(file=file)
        return ok()


class ThingImagesView(ApiView):
    @extend_schema(parameters=[THING_PARAM, *IMAGE_QUERY], responses=ImageStateSerializer(many=True),
                   summary="List a Thing's images",
                   description=VISIBILITY + " `size` requires `type` (400); unknown values are 400.")
    def get(self, request, thing_id):
        query = validated(ImageQueryInput(data=request.query_params))
        thing = thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        images = selectors.thing_image_list(thing=thing, viewer=request.user)
        return paginated_response(request, images, ImageStateSerializer, view=self, context=query)


class ThingImageDetailView(ApiView):
    @extend_schema(parameters=[THING_PARAM, IMAGE_PARAM, *IMAGE_QUERY], responses=ImageStateSerializer,
                   summary="Get a Thing's image", description=VISIBILITY)
    def get(self, request, thing_id, image_id):
        query = validated(ImageQueryInput(data=request.query_params))
        thing = thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        image = selectors.thing_image_get(thing=thing, image_id=image_id, viewer=request.user)
        return Response(ImageStateSerializer(image, context=query).data)

    @extend_schema(parameters=[THING_PARAM, IMAGE_PARAM], request=ImageUpdateInput, responses=OkSerializer,
                   summary="Change an image's rank or featured flag",
                   description="Owner only. `featured: true` makes it the Thing's default image.")
    def patch(self, request, thing_id, image_id):
        thing = thing_get_own(thing_id, viewer=request.user)
        image = selectors.thing_image_get(thing=thing, image_id=image_id, viewer=request.user)
        data = parse_patch(ImageUpdateInput, request, current=lambda: ImageSerializer(image).data)
        services.image_update(image=image, **data)
        return ok()

    @extend_schema(parameters=[THING_PARAM, IMAGE_PARAM], responses=OkSerializer, summary="Delete an image",
                   description="Owner only. Irreversible: the original and every size go too.")
    def delete(self, request, thing_id, image_id):
        thing = thing_get_own(thing_id, viewer=request.user)
        image = selectors.thing_image_get(thing=thing, image_id=image_id, viewer=request.user)
        services.image_delete(image=image)
        return ok()


class FileDetailView(ApiView):
    @extend_schema(parameters=[FILE_PARAM], responses=FileSerializer, summary="Get a file",
                   description="The file with its URLs (thumbnail and three.js JSON when rendered). "
                   + VISIBILITY)
    def get(self, request, file_id):
        file = selectors.file_get_for_viewer(file_id, viewer=request.user)
        return Response(FileSerializer(file).data)


class FileDownloadView(ApiView):
    @extend_schema(parameters=[FILE_PARAM], responses={302: OpenApiResponse(description="To the file")},
                   summary="Download a file",
                   description="302 to a short-lived store URL that saves the file under its name; the "
                   "download joins the caller's history (GET /users/{username}/downloads). " + VISIBILITY)
    def get(self, request, file_id):
        file = selectors.file_get_for_viewer(file_id, viewer=request.user)
        url = services.file_download(file=file, user=request.user)
        return Response(status=302, headers={"Location": url})


@require_safe
def file_direct(request, file_id: int, token: str, name: str):
    """GET a file's `direct_url`: its bytes, streamed from the store through the service, whatever
    Authorization header the client sends along (a printer's or slicer's HTTP client often sends its
    bearer token to every URL; a presigned store URL refuses such a request). 404 for a wrong token, a
    replaced or deleted file, a Thing gone or hidden; 503 while the store is unreachable."""
    file = selectors.file_get_direct(file_id)
    if file is None or not links.file_is_printable(file.name) or not constant_time_compare(
        token, links.file_direct_token(file.pk, file.key)
    ):
        return json_error(404, "Not Found", "NOT_FOUND")
    try:
        body = store.open_stream(file.key)
    except store.StoreError:
        return json_error(503, "The file store is unavailable.", "STORE_UNAVAILABLE", headers={"Retry-After": "30"})
    except ClientError:  # the object is gone (the file is being replaced or deleted)
        return json_error(404, "Not Found", "NOT_FOUND")
    response = StreamingHttpResponse(
        _chunks(body) if request.method == "GET" else iter(()),
        content_type=file.content_type or "application/octet-stream",
    )
    if request.method != "GET":
        body.close()
    response["Content-Length"] = str(file.size)
    response["Content-Disposition"] = content_disposition_header(False, file.name) or "inline"
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _chunks(body, size: int = 256 * 1024):
    try:
        while chunk := body.read(size):
            yield chunk
    finally:
        body.close()


class UserDownloadsView(ApiView):
    @extend_schema(parameters=[OpenApiParameter("username", str, OpenApiParameter.PATH)],
                   responses=ThingShortSerializer(many=True), summary="List the Things a user downloaded",
                   description="Most recently downloaded first, each Thing once, only Things the caller may "
                   "see. 404 if the user does not exist; 403 for someone else's history.")
    def get(self, request, username):
        user = user_get_by_name(username, viewer=request.user)
        things = selectors.thing_list_downloaded_by(user=user, viewer=request.user)
        return paginated_response(request, things, ThingShortSerializer, view=self)
