"""Upload flow endpoints (spec §4.10): start a user's avatar or cover upload (§4.1) and finalize any
upload (§4.3). Each handler: parse → selector → one service → answer. Thing files and images start in
the files part (POST /things/{id}/files), copies' and groups' images in their apps.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from rest_framework.response import Response

from apps.accounts.selectors import user_get_own
from apps.core.pipeline.api import parse_input
from apps.core.pipeline.schema import USERNAME_PARAM
from apps.core.pipeline import versions
from apps.core.domain.exceptions import ServiceUnavailable
from apps.core.pipeline.views import ApiView, json_error
from apps.uploads.flow import services
from apps.uploads.flow.serializers import (
    FLOW,
    FinalizedFileSerializer,
    ImageUploadStartInput,
    UploadDescriptorSerializer,
    UploadStartInput,
)
from apps.uploads.models import Upload

UPLOAD_PARAM = OpenApiParameter(
    "upload_id",
    int,
    OpenApiParameter.PATH,
    description="The pending upload's id (from `success_action_redirect`).",
)


def _start(request, *, kind: str, target_id: int) -> Response:
    data = parse_input(UploadStartInput, request)
    upload = services.upload_start(
        owner=request.user, kind=kind, target_id=target_id, filename=data["filename"]
    )
    return Response(services.upload_descriptor(upload=upload, wire_version=versions.of(request)))


@csrf_exempt
@require_POST
def upload_relay(request, upload_id: int):
    """POST /uploads/{id}/store: the `thingiverse` wire's object-store POST (docs/decisions.md: Wire
    versions). The client posts the descriptor's signed fields and the file, as to the store; the bytes
    are stored under the upload's key and the answer is 200 with an empty body (the client then POSTs
    `success_action_redirect`, the finalize URL, itself). A form that is not the one signed for this
    upload is 403 as the store would refuse it; a missing file 400; the store unreachable 503."""
    upload_file = request.FILES.get("file")
    if upload_file is None:
        return json_error(400, "The form has no `file` field.", "INVALID_BODY")
    fields = {name: request.POST.get(name) for name in request.POST}
    try:
        stored = services.upload_relay_store(
            upload_id=upload_id, fields=fields, fileobj=upload_file, size=upload_file.size
        )
    except ServiceUnavailable as exc:
        return json_error(503, exc.message, exc.error_type, headers={"Retry-After": str(exc.retry_after)})
    if not stored:
        return json_error(403, "Forbidden", "FORBIDDEN")
    return HttpResponse(status=200)


class UserAvatarUploadStartView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        request=ImageUploadStartInput,
        responses=UploadDescriptorSerializer,
        summary="Start uploading own avatar image",
        description=FLOW + " Images only (jpg, jpeg, png, gif, webp). Another user: 403; unknown: 404.",
    )
    def post(self, request, username):
        user = user_get_own(username, viewer=request.user)
        return _start(request, kind=Upload.Kind.AVATAR, target_id=user.pk)


class UserCoverUploadStartView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        request=ImageUploadStartInput,
        responses=UploadDescriptorSerializer,
        summary="Start uploading own cover image",
        description=FLOW + " Images only (jpg, jpeg, png, gif, webp). Another user: 403; unknown: 404.",
    )
    def post(self, request, username):
        user = user_get_own(username, viewer=request.user)
        return _start(request, kind=Upload.Kind.COVER, target_id=user.pk)


class UploadFinalizeView(ApiView):
    @extend_schema(
        parameters=[UPLOAD_PARAM],
        request=None,
        responses=FinalizedFileSerializer,
        summary="Finalize an upload",
        description="Checks the object arrived in the store and creates the file or image (then "
        "processed in the background). The body is ignored (empty, `null` or the form fields echoed). "
        "Idempotent: calling again answers the same summary. 400 `UPLOAD_MISSING` while the bytes have "
        "not arrived (retry later), `UPLOAD_EMPTY`, `UPLOAD_TOO_LARGE`, `UPLOAD_EXPIRED`, `UPLOAD_FAILED`; "
        "another user's upload: 403; unknown: 404. 503 `STORE_UNAVAILABLE` with `Retry-After` while the file "
        "store cannot be reached: nothing changed, the upload stays pending; finalize again later.",
    )
    def post(self, request, upload_id):
        return Response(services.upload_finalize(upload_id=upload_id, user=request.user))
