"""API endpoints of spec §4.1 that need only users: parse → selector → one service → serialise."""
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.accounts import selectors, services
from apps.activity.selectors import event_count_since
from apps.accounts.serializers import (
    CountSerializer,
    OkSerializer,
    UserSummarySerializer,
    UserEventCountInput,
    UserSerializer,
    UserUpdateInput,
)
from apps.core.pipeline.api import ok, paginated_response, parse_patch
from apps.core.domain.exceptions import ValidationFailed
from apps.core.pipeline.handlers import _flatten_drf_detail
from apps.core.pipeline.schema import USERNAME_PARAM



def _user_response(request, user, status=200) -> Response:
    return Response(
        UserSerializer(user, context={"request": request, "viewer": request.user}).data, status=status
    )


def _parse_query(serializer_class, request) -> dict:
    """parse_input for query parameters: same 400 VALIDATION_FAILED body."""
    serializer = serializer_class(data=request.query_params)
    if not serializer.is_valid():
        errors = _flatten_drf_detail(serializer.errors)
        field, messages = next(iter(errors.items()))
        raise ValidationFailed(f"{field}: {messages[0]}", errors=errors)
    return serializer.validated_data


class UserDetailView(ApiView):
    """/users/{username}/: read, change and delete a user (spec §4.1)."""

    @extend_schema(parameters=[USERNAME_PARAM], responses=UserSerializer, summary="Get a user")
    def get(self, request, username):
        user = selectors.user_get_by_name(username, viewer=request.user)
        return _user_response(request, user)

    @extend_schema(
        parameters=[USERNAME_PARAM],
        request=UserUpdateInput,
        responses=UserSerializer,
        summary="Update own profile",
    )
    def patch(self, request, username):
        # 404/403 before 400: a caller learns nothing about input rules on someone else's profile.
        user = selectors.user_get_own(username, viewer=request.user)
        data = parse_patch(UserUpdateInput, request, current=lambda: _user_response(request, user).data)
        user = services.user_update(user=user, data=data)
        return _user_response(request, user)

    @extend_schema(
        parameters=[USERNAME_PARAM],
        request=None,
        responses={204: None},
        summary="Delete own account",
        description="Restricted: only through an approved application (403 otherwise). Irreversible.",
    )
    def delete(self, request, username):
        user = selectors.user_get_own(username, viewer=request.user)
        services.user_delete(user=user, application=request.auth.application)
        return Response(status=204)


def _follow_list(view, request, username, listing):
    """A page of the users `listing(user=…)` gives for the named user (the live service's follow lists)."""
    user = selectors.user_get_by_name(username, viewer=request.user)
    return paginated_response(request, listing(user=user), UserSummarySerializer, view=view)


_FOLLOW_LIST: dict[str, Any] = {"parameters": [USERNAME_PARAM], "responses": UserSummarySerializer(many=True)}


class UserFollowersView(ApiView):
    """/users/{username}/followers: the user's followers (GET, the live service's list; not in the spec),
    follow (POST) and unfollow (DELETE) as the token's user."""

    @extend_schema(**_FOLLOW_LIST, summary="List a user's followers",
                   description="The live service's list, beside the spec's follow and unfollow: the latest "
                   "follower first. 404 if the user does not exist.")
    def get(self, request, username):
        return _follow_list(self, request, username, selectors.user_list_followers)

    @extend_schema(parameters=[USERNAME_PARAM], request=None, responses=OkSerializer, summary="Follow a user")
    def post(self, request, username):
        followed = selectors.user_get_by_name(username, viewer=request.user)
        services.user_follow(follower=request.user, followed=followed)
        return ok()

    @extend_schema(
        parameters=[USERNAME_PARAM], request=None, responses=OkSerializer, summary="Unfollow a user"
    )
    def delete(self, request, username):
        followed = selectors.user_get_by_name(username, viewer=request.user)
        services.user_unfollow(follower=request.user, followed=followed)
        return ok()


class UserFollowingView(ApiView):
    @extend_schema(**_FOLLOW_LIST, summary="List the users a user follows",
                   description="The live service's list (not in the spec): the latest followed first. 404 if "
                   "the user does not exist.")
    def get(self, request, username):
        return _follow_list(self, request, username, selectors.user_list_following)


class UserVerifyAccountView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        request=None,
        responses=OkSerializer,
        summary="Send a verification e-mail",
    )
    def post(self, request, username):
        user = selectors.user_get_own(username, viewer=request.user)
        services.user_send_verification(user=user)
        return ok()


class UserEventCountView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM, UserEventCountInput],
        responses=CountSerializer,
        summary="Count own events since a time",
    )
    def get(self, request, username):
        user = selectors.user_get_own(username, viewer=request.user)
        params = _parse_query(UserEventCountInput, request)
        return Response({"count": event_count_since(user=user, since=params.get("timestamp"))})


class UnreadMessageCountView(ApiView):
    @extend_schema(responses=CountSerializer, summary="Count the token user's unread messages")
    def get(self, request):
        return Response({"count": selectors.unread_message_count(user=request.user)})


class UserUnreadMessageCountView(ApiView):
    """docs/decisions.md (compat): the per-user form clients of the original API call."""

    @extend_schema(
        parameters=[USERNAME_PARAM],
        responses=CountSerializer,
        summary="Count your unread messages (per-user path)",
        operation_id="users_unread_message_count_for_user",
        description="As `/users/unread-message-count`, for your own name or `me`; another user's: 403.",
    )
    def get(self, request, username):
        user = selectors.user_get_own(username, viewer=request.user)
        return Response({"count": selectors.unread_message_count(user=user)})
