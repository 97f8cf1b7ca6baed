"""API endpoints of spec §4.8 (groups and group topics; topic comments come with the comments app).

Each handler: parse → selector → one service → serialise. Groups are fetched through
selectors.group_get / _get_as_member / _get_editable, so 404/403 live in one place.
"""
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.accounts.serializers import OkSerializer, UserSummarySerializer
from apps.core.pipeline import versions
from apps.core.pipeline.api import ok, paginated_response, parse_input, parse_patch, validated
from apps.core.pipeline.lookups import id_or_404
from apps.core.pipeline.schema import THING_PARAM
from apps.groups import selectors, services
from apps.groups.serializers import (
    GroupCreateInput,
    GroupListQuery,
    GroupSerializer,
    GroupThingRankInput,
    GroupThingsQuery,
    GroupTopicCreateInput,
    GroupTopicSerializer,
    GroupTopicUpdateInput,
    GroupUpdateInput,
)
from apps.things.selectors import thing_get_for_viewer
from apps.core.pipeline.fields import StrictCharField
from apps.things.serializers import ThingShortSerializer
from apps.uploads.models import Upload
from apps.uploads.flow.serializers import ImageUploadStartInput, UploadDescriptorSerializer
from apps.uploads.flow.services import upload_descriptor, upload_start

GROUP_PARAM = OpenApiParameter("group_id", int, OpenApiParameter.PATH, description="A group id.")
USER_PARAM = OpenApiParameter("user_id", int, OpenApiParameter.PATH, description="A member's user id.")
TOPIC_PARAM = OpenApiParameter("topic_id", int, OpenApiParameter.PATH, description="A group topic id.")


class GroupImageInput(serializers.Serializer):
    filename = StrictCharField(max_length=255, help_text="An image file name (png, jpg, gif …).")


def _group_response(request, group_id, status=200) -> Response:
    group = selectors.group_get(group_id, viewer=request.user)
    return Response(GroupSerializer(group, context={"request": request}).data, status=status)


def _topic_response(request, topic_id, status=200) -> Response:
    topic = selectors.group_topic_get(topic_id, viewer=request.user)
    return Response(GroupTopicSerializer(topic, context={"request": request}).data, status=status)


class GroupListView(ApiView):
    @extend_schema(
        parameters=[GroupListQuery],
        responses=GroupSerializer(many=True),
        summary="List groups",
        description="`filter` all or my-groups; `sort` members, topics, activity or newest (descending).",
    )
    def get(self, request):
        query = validated(GroupListQuery(data=request.query_params))
        return paginated_response(request, selectors.group_list(viewer=request.user, **query), GroupSerializer, view=self)

    @extend_schema(request=GroupCreateInput, responses={201: GroupSerializer}, summary="Create a group",
                   description="The caller becomes its owner and first member. 400 if the slug is taken.")
    def post(self, request):
        data = parse_input(GroupCreateInput, request)
        group = services.group_create(creator=request.user, **data)
        return _group_response(request, group.pk, status=201)


class GroupDetailView(ApiView):
    @extend_schema(parameters=[GROUP_PARAM], responses=GroupSerializer, summary="Get a group")
    def get(self, request, group_id):
        return _group_response(request, group_id)

    @extend_schema(parameters=[GROUP_PARAM], request=GroupUpdateInput, responses=GroupSerializer,
                   summary="Update own group", description="Group owner only (403).")
    def patch(self, request, group_id):
        group = selectors.group_get_editable(group_id, viewer=request.user)
        data = parse_patch(GroupUpdateInput, request, current=lambda: _group_response(request, group.pk).data)
        services.group_update(group=group, user=request.user, data=data)
        return _group_response(request, group.pk)


class GroupImageView(ApiView):
    @extend_schema(parameters=[GROUP_PARAM], request=ImageUploadStartInput,
                   responses=UploadDescriptorSerializer,
                   summary="Start uploading the group image",
                   description="Group owner only (403). Answers the upload descriptor; finalizing replaces the image.")
    def post(self, request, group_id):
        group = selectors.group_get_editable(group_id, viewer=request.user)
        data = parse_input(GroupImageInput, request)
        upload = upload_start(owner=request.user, kind=Upload.Kind.GROUP_IMAGE, target_id=group.pk,
                              filename=data["filename"])
        return Response(upload_descriptor(upload=upload, wire_version=versions.of(request)))


class GroupMembersView(ApiView):
    @extend_schema(parameters=[GROUP_PARAM], responses=UserSummarySerializer(many=True),
                   summary="List a group's members", description="The owner first, then by join date ascending.")
    def get(self, request, group_id):
        group = selectors.group_get_plain(group_id, viewer=request.user)
        return paginated_response(request, selectors.group_member_list(group=group), UserSummarySerializer, view=self)

    @extend_schema(parameters=[GROUP_PARAM], request=None, responses=OkSerializer, summary="Join a group",
                   description="Already a member: ok too.")
    def post(self, request, group_id):
        group = selectors.group_get_plain(group_id, viewer=request.user)
        services.group_join(group=group, user=request.user)
        return ok()

    @extend_schema(parameters=[GROUP_PARAM], request=None, responses=OkSerializer, summary="Leave a group",
                   description="400 for the group owner, who cannot leave their own group.")
    def delete(self, request, group_id, user_id=None):
        group = selectors.group_get_plain(group_id, viewer=request.user)
        member_id = request.user.pk if user_id is None else id_or_404(user_id)
        services.group_member_remove(group=group, user=request.user, member_id=member_id)
        return ok()


class GroupMemberView(GroupMembersView):
    http_method_names = ["delete", "options"]

    @extend_schema(parameters=[GROUP_PARAM, USER_PARAM], request=None, responses=OkSerializer,
                   summary="Remove a member from a group",
                   description="The owner may name any member; others only themselves (403). "
                   "The owner cannot leave their own group (400).")
    def delete(self, request, group_id, user_id=None):
        return super().delete(request, group_id, user_id)


class GroupThingsView(ApiView):
    @extend_schema(parameters=[GROUP_PARAM, GroupThingsQuery], responses=ThingShortSerializer(many=True),
                   summary="List the Things in a group",
                   description="Only Things the caller may see. `sort` newest (added to the group) or popular "
                   "(most liked); `search` (name) in relevance order; both together: 400.")
    def get(self, request, group_id):
        group = selectors.group_get_plain(group_id, viewer=request.user)
        query = validated(GroupThingsQuery(data=request.query_params))
        things = selectors.group_list_things(group=group, viewer=request.user, **query)
        return paginated_response(request, things, ThingShortSerializer, view=self)


class GroupThingView(ApiView):
    @extend_schema(parameters=[GROUP_PARAM, THING_PARAM], request=None, responses=OkSerializer,
                   summary="Add a Thing to a group", description="Members only (403). Already in: ok too.")
    def post(self, request, group_id, thing_id):
        group = selectors.group_get_as_member(group_id, viewer=request.user)
        thing = thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        services.group_thing_add(group=group, thing=thing, user=request.user)
        return ok()

    @extend_schema(parameters=[GROUP_PARAM, THING_PARAM], request=None, responses=OkSerializer,
                   summary="Remove a Thing from a group",
                   description="Members only (403); 400 if the Thing is not in the group; then the owner or "
                   "the member who added it (403).")
    def delete(self, request, group_id, thing_id):
        group = selectors.group_get_as_member(group_id, viewer=request.user)
        entry = selectors.group_entry_get(group=group, thing_id=thing_id)
        services.group_thing_remove(group=group, thing_id=entry.thing_id, user=request.user)
        return ok()

    @extend_schema(parameters=[GROUP_PARAM, THING_PARAM], request=GroupThingRankInput, responses=OkSerializer,
                   summary="Feature or unfeature a Thing in a group",
                   description="Group owner only (403). Rank 1-3 features it in that slot (400 if the slot is "
                   "taken or it is already featured: set 0 first); 0 unfeatures it (400 if not featured). "
                   "400 if the Thing is not in the group.")
    def patch(self, request, group_id, thing_id):
        group = selectors.group_get_editable(group_id, viewer=request.user)
        data = parse_input(GroupThingRankInput, request)
        entry = selectors.group_entry_get(group=group, thing_id=thing_id)
        services.group_thing_rank_set(group=group, thing_id=entry.thing_id, user=request.user, rank=data["rank"])
        return ok()


class GroupTopicsView(ApiView):
    @extend_schema(parameters=[GROUP_PARAM], responses=GroupTopicSerializer(many=True),
                   summary="List a group's topics", description="Pinned first, then newest first.")
    def get(self, request, group_id):
        group = selectors.group_get_plain(group_id, viewer=request.user)
        return paginated_response(request, selectors.group_topic_list(group=group), GroupTopicSerializer, view=self)

    @extend_schema(parameters=[GROUP_PARAM], request=GroupTopicCreateInput, responses={201: GroupTopicSerializer},
                   summary="Start a group topic", description="Members only (403).")
    def post(self, request, group_id):
        group = selectors.group_get_as_member(group_id, viewer=request.user)
        data = parse_input(GroupTopicCreateInput, request)
        topic = services.group_topic_create(group=group, user=request.user, **data)
        return _topic_response(request, topic.pk, status=201)


class GroupTopicDetailView(ApiView):
    @extend_schema(parameters=[TOPIC_PARAM], responses=GroupTopicSerializer, summary="Get a group topic")
    def get(self, request, topic_id):
        return _topic_response(request, topic_id)

    @extend_schema(parameters=[TOPIC_PARAM], request=GroupTopicUpdateInput, responses=GroupTopicSerializer,
                   summary="Update own group topic", description="Author only (403).")
    def patch(self, request, topic_id):
        topic = selectors.group_topic_get(topic_id, viewer=request.user)
        data = parse_patch(GroupTopicUpdateInput, request, current=lambda: _topic_response(request, topic.pk).data)
        services.group_topic_update(topic=topic, user=request.user, data=data)
        return _topic_response(request, topic.pk)


class GroupTopicPinView(ApiView):
    @extend_schema(parameters=[TOPIC_PARAM], request=None, responses=GroupTopicSerializer,
                   summary="Pin a group topic", description="Group owner only (403). Already pinned: no-op.")
    def post(self, request, topic_id):
        topic = selectors.group_topic_get(topic_id, viewer=request.user)
        services.group_topic_pin_set(topic=topic, user=request.user, action="pin")
        return _topic_response(request, topic.pk)

    @extend_schema(parameters=[TOPIC_PARAM], request=None, responses=GroupTopicSerializer,
                   summary="Unpin a group topic", description="Group owner only (403). Not pinned: no-op.")
    def delete(self, request, topic_id):
        topic = selectors.group_topic_get(topic_id, viewer=request.user)
        services.group_topic_pin_set(topic=topic, user=request.user, action="unpin")
        return _topic_response(request, topic.pk)
