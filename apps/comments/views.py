"""API endpoints of spec §4.6 (comments) and the comment rows of §4.2 (Things), §4.4 (copies) and §4.8
(group topics).

Each handler: parse → selector → one service → serialise. Comments are fetched through
selectors.comment_get_for_viewer (and its _editable / _deletable forms), targets through
comment_thing_get / comment_make_get / comment_topic_get, so the 401/403/404 matrix lives in one place.
"""
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.accounts.serializers import OkSerializer
from apps.comments import rules, selectors, services
from apps.comments.serializers import (
    CommentBodyInput,
    CommentCreateInput,
    CommentSerializer,
    TargetCommentCreateInput,
    ThreadedCommentsSerializer,
)
from apps.core.pipeline.api import ok, paginated_response, parse_input, parse_patch
from apps.core.domain.exceptions import ValidationFailed
from apps.core.pipeline.schema import THING_PARAM

COMMENT_PARAM = OpenApiParameter("comment_id", int, OpenApiParameter.PATH, description="A comment id.")
COPY_PARAM = OpenApiParameter("copy_id", int, OpenApiParameter.PATH, description="A copy (make) id.")
TOPIC_PARAM = OpenApiParameter("topic_id", int, OpenApiParameter.PATH, description="A group topic id.")

HIDDEN = "Comments hidden by a moderator are left out (staff see them)."
THREADED = (
    '`threads` maps a parent comment id (a string; `""` for the top level) to its replies, oldest first; '
    "each comment names its author by `user_id`, and `users` maps those ids to user summaries. The whole "
    f"conversation in one answer, up to {rules.THREADED_MAX_COMMENTS:,} comments (the oldest; `truncated` "
    "is true when there are more). Deleted comments with replies stay as placeholders (`is_deleted`). "
    + HIDDEN
)
LIST = "Oldest first. Deleted comments with replies are listed as placeholders (`is_deleted`). " + HIDDEN
THING_MATRIX = "The Thing's rules apply: unpublished and not owned 403, missing or hidden 404."


def _comment_response(request, comment, status=200) -> Response:
    return Response(CommentSerializer(comment, context={"request": request}).data, status=status)


# --- /comments/ ------------------------------------------------------------------------------------


class CommentCreateView(ApiView):
    @extend_schema(
        request=CommentCreateInput,
        responses={201: CommentSerializer},
        summary="Comment on a Thing or copy",
        description="`target_type` `thing` or `make` (also `group_topic`: members only, 403). 404 when the "
        "target does not exist or the caller may not see it.",
    )
    def post(self, request):
        data = parse_input(CommentCreateInput, request)
        target = selectors.comment_target_get(data["target_type"], data["target_id"], viewer=request.user)
        comment = services.comment_create(user=request.user, target=target, body=data["body"])
        return _comment_response(request, comment, status=201)


class CommentDetailView(ApiView):
    @extend_schema(parameters=[COMMENT_PARAM], responses=CommentSerializer, summary="Get a comment",
                   description="404 when missing, hidden, or on something the caller may not see.")
    def get(self, request, comment_id):
        return _comment_response(request, selectors.comment_get_for_viewer(comment_id, viewer=request.user))

    @extend_schema(parameters=[COMMENT_PARAM], request=CommentBodyInput, responses=CommentSerializer,
                   summary="Edit own comment", description="The author only (403).")
    def patch(self, request, comment_id):
        # 404/403 before 400: nobody learns input rules on someone else's comment.
        comment = selectors.comment_get_editable(comment_id, viewer=request.user)
        data = parse_patch(
            CommentBodyInput, request, require=True, current=lambda: _comment_response(request, comment).data
        )
        if "body" in data:
            comment = services.comment_update(comment=comment, user=request.user, body=data["body"])
        return _comment_response(request, comment)

    @extend_schema(
        parameters=[COMMENT_PARAM],
        responses=OkSerializer,
        summary="Delete a comment",
        description="Irreversible. The author, or the owner of what it is on (the Thing's creator; a "
        "copy's creator or its Thing's creator; the group owner), else 403. A comment with replies stays "
        "as a placeholder (`is_deleted`, empty body, no user); the owner of what it is on may delete it again "
        "(a no-op), its former author no longer can (403).",
    )
    def delete(self, request, comment_id):
        comment = selectors.comment_get_deletable(comment_id, viewer=request.user)
        services.comment_delete(comment=comment, user=request.user)
        return ok()


class CommentRepliesView(ApiView):
    @extend_schema(
        parameters=[OpenApiParameter("parent_id", int, OpenApiParameter.PATH, description="A comment id.")],
        responses=CommentSerializer(many=True),
        summary="List the replies to a comment",
        description="The direct replies, unthreaded. " + LIST,
    )
    def get(self, request, parent_id):
        parent = selectors.comment_get_for_viewer(parent_id, viewer=request.user)
        replies = selectors.comment_list_replies(parent=parent, viewer=request.user)
        return paginated_response(request, replies, CommentSerializer, view=self)


class CommentReplyView(ApiView):
    @extend_schema(
        parameters=[COMMENT_PARAM],
        request=CommentBodyInput,
        responses={201: CommentSerializer},
        summary="Reply to a comment",
        description="The reply is on the same Thing, copy or topic. Threads nest "
        f"{rules.COMMENT_MAX_DEPTH + 1} levels deep: a reply to a comment at the deepest level goes next to "
        "it (see `parent_id`). 400 for a deleted comment; a group topic's comments take replies from group "
        "members only (403).",
    )
    def post(self, request, comment_id):
        comment = selectors.comment_get_for_viewer(comment_id, viewer=request.user)
        target = comment.topic or comment.thing or comment.make
        selectors.comment_target_check_writable(target, viewer=request.user)  # 403 before 400
        data = parse_input(CommentBodyInput, request)
        reply = services.comment_reply(user=request.user, comment=comment, body=data["body"])
        return _comment_response(request, reply, status=201)


# --- the comments of a Thing, a copy, a group topic -----------------------------------------------------


class _TargetView(ApiView):
    """The comment endpoints every target shares; a mixin (_OnThing, …) says how to read the target."""

    def target(self, request, **kwargs) -> Any:
        raise NotImplementedError


class _ThreadedView(_TargetView):
    def get(self, request, **kwargs):
        target = self.target(request, **kwargs)
        comments = selectors.comment_thread_list(target=target, viewer=request.user)
        return Response(ThreadedCommentsSerializer(comments, context={"request": request}).data)


class _CommentsView(_TargetView):
    roots_only = False

    def get(self, request, **kwargs):
        target = self.target(request, **kwargs)
        comments = selectors.comment_list_for_target(
            target=target, viewer=request.user, roots_only=self.roots_only
        )
        return paginated_response(request, comments, CommentSerializer, view=self)


class _CommentsPostView(_CommentsView):
    def post(self, request, **kwargs):
        target = self.target(request, **kwargs)
        selectors.comment_target_check_writable(target, viewer=request.user)  # 403 before 400
        data = parse_input(TargetCommentCreateInput, request)
        parent_id = data.get("parent_id")
        if parent_id is None:
            comment = services.comment_create(user=request.user, target=target, body=data["body"])
        else:
            parent = selectors.comment_get_on_target(parent_id, target=target, viewer=request.user)
            if parent is None:
                message = "No comment with this id here."
                raise ValidationFailed(f"parent_id: {message}", errors={"parent_id": [message]})
            comment = services.comment_reply(user=request.user, comment=parent, body=data["body"])
        return _comment_response(request, comment, status=201)


class _OnThing:
    def target(self, request, **kwargs) -> Any:
        thing_id = kwargs["thing_id"]
        return selectors.comment_thing_get(thing_id, viewer=request.user)


class _OnCopy:
    def target(self, request, **kwargs) -> Any:
        copy_id = kwargs["copy_id"]
        return selectors.comment_make_get(copy_id, viewer=request.user)


class _OnTopic:
    def target(self, request, **kwargs) -> Any:
        topic_id = kwargs["topic_id"]
        return selectors.comment_topic_get(topic_id, viewer=request.user)


def _post_schema(param, what: str, extra: str = ""):
    return extend_schema(
        parameters=[param],
        request=TargetCommentCreateInput,
        responses={201: CommentSerializer},
        summary=f"Comment on a {what}",
        description="`parent_id` (optional) makes it a reply to that comment, which must be on the same "
        f"{what} (400 otherwise). {extra}".strip(),
    )


@extend_schema_view(get=extend_schema(parameters=[THING_PARAM], responses=ThreadedCommentsSerializer,
                                      summary="Get a Thing's comments, threaded",
                                      description=THREADED + " " + THING_MATRIX))
class ThingThreadedCommentsView(_OnThing, _ThreadedView):
    pass


@extend_schema_view(
    get=extend_schema(parameters=[THING_PARAM], responses=CommentSerializer(many=True),
                      summary="List a Thing's comments", description=LIST + " " + THING_MATRIX),
    post=_post_schema(THING_PARAM, "Thing", THING_MATRIX),
)
class ThingCommentsView(_OnThing, _CommentsPostView):
    pass


@extend_schema_view(get=extend_schema(parameters=[THING_PARAM], responses=CommentSerializer(many=True),
                                      summary="List a Thing's top-level comments",
                                      description=LIST + " " + THING_MATRIX))
class ThingRootCommentsView(_OnThing, _CommentsView):
    roots_only = True


COPY_RULE = "404 when the copy is missing or the caller may not see it."


@extend_schema_view(get=extend_schema(parameters=[COPY_PARAM], responses=ThreadedCommentsSerializer,
                                      summary="Get a copy's comments, threaded",
                                      description=THREADED + " " + COPY_RULE))
class CopyThreadedCommentsView(_OnCopy, _ThreadedView):
    pass


@extend_schema_view(
    get=extend_schema(parameters=[COPY_PARAM], responses=CommentSerializer(many=True),
                      summary="List a copy's comments", description=LIST + " " + COPY_RULE),
    post=_post_schema(COPY_PARAM, "copy", COPY_RULE),
)
class CopyCommentsView(_OnCopy, _CommentsPostView):
    pass


@extend_schema_view(get=extend_schema(parameters=[COPY_PARAM], responses=CommentSerializer(many=True),
                                      summary="List a copy's top-level comments",
                                      description=LIST + " " + COPY_RULE))
class CopyRootCommentsView(_OnCopy, _CommentsView):
    roots_only = True


TOPIC_RULE = "Every user reads a topic's comments; only members of its group write them (403)."


@extend_schema_view(get=extend_schema(parameters=[TOPIC_PARAM], responses=ThreadedCommentsSerializer,
                                      summary="Get a group topic's comments, threaded",
                                      description=THREADED + " " + TOPIC_RULE))
class TopicThreadedCommentsView(_OnTopic, _ThreadedView):
    pass


@extend_schema_view(
    get=extend_schema(parameters=[TOPIC_PARAM], responses=CommentSerializer(many=True),
                      summary="List a group topic's comments", description=LIST + " " + TOPIC_RULE),
    post=_post_schema(TOPIC_PARAM, "group topic", TOPIC_RULE),
)
class TopicCommentsView(_OnTopic, _CommentsPostView):
    pass


# Beyond the spec, which lists root comments for Things and copies only: the live service listed a group
# topic's too (`/grouptopics/{id}/root-comments`, its clients' path; docs/decisions.md).
@extend_schema_view(get=extend_schema(parameters=[TOPIC_PARAM], responses=CommentSerializer(many=True),
                                      summary="List a group topic's top-level comments",
                                      description=LIST + " " + TOPIC_RULE))
class TopicRootCommentsView(_OnTopic, _CommentsView):
    roots_only = True
