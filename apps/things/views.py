"""API endpoints of spec §4.2 (Things) and the Things lists of §4.1.

Each handler: parse → selector → one service → serialise.

Every Thing is fetched through selectors.thing_get_for_viewer (or thing_get_own), so the spec's
401/403/404 matrix (§4.2, §7) lives in one place.
"""
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.accounts.selectors import user_get_by_name
from apps.accounts.serializers import OkSerializer, UserSummarySerializer
from apps.core.pipeline.api import ok, paginated_response, parse_input, parse_patch
from apps.core.pipeline import versions
from apps.core.domain.exceptions import NotFound, PreconditionFailed
from apps.core.pipeline.lookups import viewer_id
from apps.core.pipeline.schema import THING_PARAM, USERNAME_PARAM
from apps.things import bodies, bodycache, selectors, services
from apps.things.serializers import (
    CategorySerializer,
    FavoriteSerializer,
    TagSerializer,
    ThingCreateInput,
    ThingSerializer,
    ThingShortSerializer,
    ThingUpdateInput,
    WatchingSerializer,
)

MATRIX = (
    "Unpublished and unauthenticated: 401. Unpublished and not owned: 403. Invalid, deleted or hidden by a "
    "moderator: 404."
)


def _thing_response(request, thing_id, status=200) -> Response:
    # Re-read after a write: the body shows the stored state with the caller's is_liked/is_watched, and
    # its ETag (the version a next If-Match names).
    thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user)
    wire = versions.of(request)
    others = bodies.thing_shown_versions(thing.pk, wire)  # before the body, as bodies.thing_detail reads them
    data = ThingSerializer(thing, context={"request": request}).data
    etag = bodies.thing_etag(thing.version, data["is_liked"], data["is_watched"], wire,
                             shown=bodies.thing_body_shown(others, data))
    return Response(data, status=status, headers={"ETag": etag})


def _if_match_version(request, thing) -> int | None:
    """The Thing's version an `If-Match` holds the write to (None: no If-Match, or `*`); 412 when it
    names no current representation of the Thing for this caller (strong comparison). The service
    checks the version again under the row's lock, so a write between the two is refused too."""
    header = request.headers.get("If-Match")
    if not header:
        return None
    state = bodycache.thing_state(thing.pk, viewer_id(request.user))
    if state is None:
        raise NotFound()
    if header.strip() == "*":
        return None
    if not bodies.thing_etag_data_in(header, bodies.thing_etag(state[0], state[2], state[3], versions.of(request))):
        raise PreconditionFailed("The Thing changed since the version this request names (If-Match).")
    return state[0]


class ThingCreateView(ApiView):
    @extend_schema(
        request=ThingCreateInput,
        responses={201: ThingSerializer},
        summary="Create a Thing",
        description="The new Thing is unpublished. `license` defaults to the caller's default license "
        "(`cc-sa` when that is not a Thing license).",
    )
    def post(self, request):
        data = parse_input(ThingCreateInput, request)
        thing = services.thing_create(creator=request.user, **data)
        return _thing_response(request, thing.pk, status=201)


class ThingDetailView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM], responses=ThingSerializer, summary="Get a Thing", description=MATRIX
    )
    def get(self, request, thing_id):
        # The cached public body plus the caller's is_liked/is_watched (bodycache), else built and kept:
        # one function, one rendering, the pipeline's headers (ApiView: 304 when If-None-Match names it).
        body = bodies.thing_detail(thing_id, viewer=request.user, request=request, cached_values=self.cached_values,
                                   with_token=self.with_token)
        return Response(body, headers=body.headers)

    def cache_keys(self, request, thing_id=None, **kwargs):
        return bodies.detail_keys(thing_id, request)

    def read_with_token(self, request, thing_id=None, **kwargs):
        # With the body cache on, what a kept body needs: its check (bodycache.thing_state, one narrow
        # statement); with it off, the Thing's detail row, which the view then always reads.
        if bodies.cache_seconds():
            return bodycache.thing_state_read_with_token(thing_id)
        return selectors.thing_read_with_token(thing_id)

    @extend_schema(
        parameters=[THING_PARAM],
        request=ThingUpdateInput,
        responses=ThingSerializer,
        summary="Update own Thing",
    )
    def patch(self, request, thing_id):
        # 404/403 before 400: a caller learns nothing about input rules on someone else's Thing.
        thing = selectors.thing_get_own(thing_id, viewer=request.user)
        if_version = _if_match_version(request, thing)
        data = parse_patch(
            ThingUpdateInput, request, current=lambda: ThingSerializer(thing, context={"request": request}).data
        )
        services.thing_update(thing=thing, data=data, if_version=if_version)
        return _thing_response(request, thing.pk)

    @extend_schema(
        parameters=[THING_PARAM],
        responses=OkSerializer,
        summary="Delete own Thing",
        description="Irreversible.",
    )
    def delete(self, request, thing_id):
        thing = selectors.thing_get_own(thing_id, viewer=request.user)
        services.thing_delete(thing=thing, if_version=_if_match_version(request, thing))
        return ok()


class ThingPublishView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        request=None,
        responses=ThingSerializer,
        summary="Publish own Thing",
        description="400 NOT_PUBLISHABLE with `errors: [reasons]` when the Thing is not publishable. "
        "Publishing a published Thing returns it unchanged.",
    )
    def post(self, request, thing_id):
        thing = selectors.thing_get_own(thing_id, viewer=request.user)
        services.thing_publish(thing=thing)
        return _thing_response(request, thing.pk)


class ThingLikesView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        responses=UserSummarySerializer(many=True),
        summary="List the users who liked a Thing",
        description="Newest like first.",
    )
    def get(self, request, thing_id):
        thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        users = selectors.thing_liker_list(thing=thing)
        return paginated_response(request, users, UserSummarySerializer, view=self)

    @extend_schema(
        parameters=[THING_PARAM],
        request=None,
        responses=OkSerializer,
        summary="Like a Thing",
        description="400 for one's own Thing; liking again is fine.",
    )
    def post(self, request, thing_id):
        thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        services.thing_like(user=request.user, thing=thing)
        return ok()

    @extend_schema(
        parameters=[THING_PARAM],
        request=None,
        responses=OkSerializer,
        summary="Unlike a Thing",
        description="400 for one's own Thing; not liking it already is fine.",
    )
    def delete(self, request, thing_id):
        thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        services.thing_unlike(user=request.user, thing=thing)
        return ok()


class ThingToggleWatchView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        request=None,
        responses=WatchingSerializer,
        summary="Watch or unwatch a Thing",
    )
    def post(self, request, thing_id):
        thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        return Response({"watching": services.thing_toggle_watch(user=request.user, thing=thing)})


class ThingAncestorsView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        responses=ThingShortSerializer(many=True),
        summary="List the Things a Thing derives from",
        description="Only those the caller may see; newest first.",
    )
    def get(self, request, thing_id):
        thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        things = selectors.thing_list_ancestors(thing=thing, viewer=request.user)
        return paginated_response(request, things, ThingShortSerializer, view=self)


class ThingDerivativesView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        responses=ThingShortSerializer(many=True),
        summary="List the Things derived from a Thing",
        description="Only those the caller may see; newest first.",
    )
    def get(self, request, thing_id):
        thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        things = selectors.thing_list_derivatives(thing=thing, viewer=request.user)
        return paginated_response(request, things, ThingShortSerializer, view=self)


class ThingTagsView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM], responses=TagSerializer(many=True), summary="List a Thing's tags"
    )
    def get(self, request, thing_id):
        thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        tags = selectors.thing_tag_list(thing=thing, viewer=request.user)
        return paginated_response(request, tags, TagSerializer, view=self)


class ThingCategoriesView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        responses=CategorySerializer(many=True),
        summary="List a Thing's categories",
        description="The Thing's category, then its parent category; empty when it has none.",
    )
    def get(self, request, thing_id):
        thing = selectors.thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        categories = selectors.thing_category_list(thing=thing, viewer=request.user)
        return paginated_response(request, categories, CategorySerializer, view=self)


class ThingHackThePandemicView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        responses=ThingSerializer,
        summary="Get a Thing, published or not",
        description="Unpublished Things are allowed for every user (spec §4.2); 404 only when missing.",
    )
    def get(self, request, thing_id):
        thing = selectors.thing_get_any(thing_id, viewer=request.user)
        return Response(ThingSerializer(thing, context={"request": request}).data)


class UserThingsView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        responses=ThingShortSerializer(many=True),
        summary="List a user's Things",
        description="Newest first. The caller's own list includes unpublished Things. 404 if the user "
        "does not exist.",
    )
    def get(self, request, username):
        owner = user_get_by_name(username, viewer=request.user)
        things = selectors.thing_list_for_user(owner=owner, viewer=request.user)
        return paginated_response(request, things, ThingShortSerializer, view=self, empty_page_404_in_live_wire=True)


class UserLikesView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        responses=ThingShortSerializer(many=True),
        summary="List the Things a user liked",
        description="Newest like first, only Things the caller may see. 404 if the user does not exist.",
    )
    def get(self, request, username):
        user = user_get_by_name(username, viewer=request.user)
        things = selectors.thing_list_liked_by(user=user, viewer=request.user)
        return paginated_response(request, things, ThingShortSerializer, view=self, empty_page_404_in_live_wire=True)


class UserFavoritesView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        responses=FavoriteSerializer(many=True),
        summary="List a user's favorites",
        description="A favorite is a liked Thing: the short Thing plus `favorited`, when the user liked it. "
        "Newest first, only Things the caller may see. 404 if the user does not exist.",
    )
    def get(self, request, username):
        user = user_get_by_name(username, viewer=request.user)
        things = selectors.thing_list_favorited_by(user=user, viewer=request.user)
        return paginated_response(request, things, FavoriteSerializer, view=self)
