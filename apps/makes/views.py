"""API endpoints of copies (makes): spec §4.4, the copies rows of §4.2, and §4.1 /users/{username}/copies.
(Comments on copies belong to apps.comments.)

Each handler: parse → selector → one service → serialise. Makes are fetched through
selectors.make_get_for_viewer / make_get_own, so 404/403 live in one place; a Thing's lists go through
the Thing's own matrix first.
"""
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.accounts.selectors import user_get_by_name
from apps.accounts.serializers import OkSerializer
from apps.core.pipeline import versions
from apps.core.pipeline.api import ok, paginated_response, parse_input, parse_patch, validated
from apps.core.pipeline.schema import THING_PARAM, USERNAME_PARAM
from apps.makes import selectors, services
from apps.makes.serializers import MakeSerializer, MakeUpdateInput, MakeWithImagesSerializer
from apps.things.selectors import thing_get_for_viewer
from apps.uploads.files.serializers import (
    ImageQueryInput,
    ImageSerializer,
    ImageStateSerializer,
    ImageUpdateInput,
)
from apps.uploads.flow.serializers import (
    ImageUploadStartInput,
    UploadDescriptorSerializer,
    UploadStartInput,
)
from apps.uploads.flow.services import upload_descriptor

COPY_PARAM = OpenApiParameter("copy_id", int, OpenApiParameter.PATH, description="A copy (make) id.")
IMAGE_PARAM = OpenApiParameter("image_id", int, OpenApiParameter.PATH, description="An image id.")
IMAGE_QUERY = [
    OpenApiParameter(
        "type", str, enum=["thumb", "preview", "display"], description="Only this type's sizes."
    ),
    OpenApiParameter(
        "size", str, enum=["large", "medium", "small", "tiny"], description="Only this size (needs `type`)."
    ),
]
VISIBILITY = (
    "A copy is visible when it is not hidden by a moderator and its Thing is visible to the caller "
    "(published, or their own); otherwise, like a missing copy, 404."
)
THING_MATRIX = (
    "The Thing's matrix: unpublished and unauthenticated 401, unpublished and not owned 403, missing 404."
)
UPLOAD_FLOW = (
    "Answers the upload descriptor: POST its `fields` in order, then a `file` part, to `action`; then "
    "finalize (POST `success_action_redirect`). Images only (jpg, jpeg, png, gif, webp)."
)
CREATOR_ONLY = "The copy's creator only (403 otherwise)."


def _make_response(request, make_id) -> Response:
    # Re-read after a write: the body shows the stored state with the caller's is_liked.
    make = selectors.make_get_for_viewer(make_id, viewer=request.user)
    return Response(MakeSerializer(make, context={"request": request}).data)


class ThingPrintsView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        responses=MakeSerializer(many=True),
        summary="List a Thing's prints",
        description="A Thing's prints are its makes (copies, in the docs/decisions.md Copy shape), newest first. "
        "Unpublished and unauthenticated: 401. Unpublished and not owned: 403. Invalid, deleted or hidden by "
        "a moderator: 404.",
    )
    def get(self, request, thing_id):
        thing = thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        makes = selectors.make_list_for_thing(thing=thing, viewer=request.user)
        return paginated_response(request, makes, MakeSerializer, view=self)


class ThingCopiesView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        responses=MakeWithImagesSerializer(many=True),
        summary="List a Thing's copies with their images",
        description=f"Newest first. {THING_MATRIX} Each copy carries `images` (live ones; a copy's creator "
        "also sees images still processing).",
    )
    def get(self, request, thing_id):
        thing = thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        makes = selectors.make_list_for_thing_with_images(thing=thing, viewer=request.user)
        return paginated_response(request, makes, MakeWithImagesSerializer, view=self)

    @extend_schema(
        parameters=[THING_PARAM],
        request=ImageUploadStartInput,
        responses=UploadDescriptorSerializer,
        summary="Post a copy of a Thing: start uploading its image",
        description=f"{UPLOAD_FLOW} The copy is created, with this image, when the upload is finalized; the "
        "finalize summary's `url` is the image under `/copies/{id}/images/`. The Thing must be published "
        f"(400 otherwise); one's own Thing is fine. {THING_MATRIX}",
    )
    def post(self, request, thing_id):
        # 404/403 before 400: a caller learns nothing about input rules on a Thing they may not see.
        thing = selectors.thing_get_makeable(thing_id, viewer=request.user)
        data = parse_input(UploadStartInput, request)
        upload = services.make_upload_start(thing=thing, owner=request.user, filename=data["filename"])
        return Response(upload_descriptor(upload=upload, wire_version=versions.of(request)))


class CopyListView(ApiView):
    @extend_schema(
        responses=MakeSerializer(many=True), summary="List the latest copies", description="Newest first."
    )
    def get(self, request):
        makes = selectors.make_list_latest(viewer=request.user)
        return paginated_response(request, makes, MakeSerializer, view=self)


class CopyDetailView(ApiView):
    @extend_schema(
        parameters=[COPY_PARAM], responses=MakeSerializer, summary="Get a copy", description=VISIBILITY
    )
    def get(self, request, copy_id):
        return _make_response(request, copy_id)

    @extend_schema(
        parameters=[COPY_PARAM],
        request=MakeUpdateInput,
        responses=MakeSerializer,
        summary="Update own copy",
        description=f"The description. {CREATOR_ONLY}",
    )
    def patch(self, request, copy_id):
        make = selectors.make_get_own(copy_id, viewer=request.user)
        data = parse_patch(MakeUpdateInput, request, current=lambda: _make_response(request, make.pk).data)
        services.make_update(make=make, data=data)
        return _make_response(request, make.pk)

    @extend_schema(
        parameters=[COPY_PARAM],
        responses={204: None},
        summary="Delete own copy",
        description=f"No body. Irreversible: its images go too. {CREATOR_ONLY}",
    )
    def delete(self, request, copy_id):
        make = selectors.make_get_own(copy_id, viewer=request.user)
        services.make_delete(make=make)
        return Response(status=204)


class CopyImagesView(ApiView):
    @extend_schema(
        parameters=[COPY_PARAM, *IMAGE_QUERY],
        responses=ImageStateSerializer(many=True),
        summary="List a copy's images",
        description=f"By rank. The creator also sees images still processing or failed. {VISIBILITY}",
    )
    def get(self, request, copy_id):
        query = validated(ImageQueryInput(data=request.query_params))
        make = selectors.make_get_for_viewer(copy_id, viewer=request.user)
        images = selectors.make_image_list(make=make, viewer=request.user)
        return paginated_response(request, images, ImageStateSerializer, view=self, context=query)

    @extend_schema(
        parameters=[COPY_PARAM],
        request=ImageUploadStartInput,
        responses=UploadDescriptorSerializer,
        summary="Start uploading another image of own copy",
        description=f"{UPLOAD_FLOW} {CREATOR_ONLY}",
    )
    def post(self, request, copy_id):
        make = selectors.make_get_own(copy_id, viewer=request.user)
        data = parse_input(UploadStartInput, request)
        upload = services.make_image_upload_start(make=make, owner=request.user, filename=data["filename"])
        return Response(upload_descriptor(upload=upload, wire_version=versions.of(request)))


class CopyImageDetailView(ApiView):
    @extend_schema(
        parameters=[COPY_PARAM, IMAGE_PARAM, *IMAGE_QUERY],
        responses=ImageStateSerializer,
        summary="Get a copy's image",
        description=f"An image of another copy is 404. {VISIBILITY}",
    )
    def get(self, request, copy_id, image_id):
        query = validated(ImageQueryInput(data=request.query_params))
        make = selectors.make_get_for_viewer(copy_id, viewer=request.user)
        image = selectors.make_image_get(make=make, image_id=image_id, viewer=request.user)
        return Response(ImageStateSerializer(image, context=query).data)

    @extend_schema(
        parameters=[COPY_PARAM, IMAGE_PARAM],
        request=ImageUpdateInput,
        responses=OkSerializer,
        summary="Change a copy image's rank or featured flag",
        description="`featured: true` makes it the copy's thumbnail (the others are unfeatured). "
        + CREATOR_ONLY,
    )
    def patch(self, request, copy_id, image_id):
        make = selectors.make_get_own(copy_id, viewer=request.user)
        image = selectors.make_image_get(make=make, image_id=image_id, viewer=request.user)
        data = parse_patch(ImageUpdateInput, request, current=lambda: ImageSerializer(image).data)
        services.make_image_update(make=make, image=image, **data)
        return ok()

    @extend_schema(
        parameters=[COPY_PARAM, IMAGE_PARAM],
        responses=OkSerializer,
        summary="Delete a copy's image",
        description=f"Irreversible: the original and every size go too. {CREATOR_ONLY}",
    )
    def delete(self, request, copy_id, image_id):
        make = selectors.make_get_own(copy_id, viewer=request.user)
        image = selectors.make_image_get(make=make, image_id=image_id, viewer=request.user)
        services.make_image_delete(image=image)
        return ok()


class CopyLikesView(ApiView):
    @extend_schema(
        parameters=[COPY_PARAM],
        request=None,
        responses=OkSerializer,
        summary="Like a copy",
        description=f"400 for one's own copy; liking again is fine. {VISIBILITY}",
    )
    def post(self, request, copy_id):
        make = selectors.make_get_for_viewer(copy_id, viewer=request.user)
        services.make_like(user=request.user, make=make)
        return ok()

    @extend_schema(
        parameters=[COPY_PARAM],
        request=None,
        responses=OkSerializer,
        summary="Unlike a copy",
        description=f"400 for one's own copy; not liking it already is fine. {VISIBILITY}",
    )
    def delete(self, request, copy_id):
        make = selectors.make_get_for_viewer(copy_id, viewer=request.user)
        services.make_unlike(user=request.user, make=make)
        return ok()


class UserCopiesView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        responses=MakeSerializer(many=True),
        summary="List a user's copies",
        description="Newest first, only copies the caller may see. 404 if the user does not exist.",
    )
    def get(self, request, username):
        owner = user_get_by_name(username, viewer=request.user)
        makes = selectors.make_list_for_user(owner=owner, viewer=request.user)
        return paginated_response(request, makes, MakeSerializer, view=self, empty_page_404_in_live_wire=True)
