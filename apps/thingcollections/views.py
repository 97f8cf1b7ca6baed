"""API endpoints of spec §4.5 (collections) and the collections lists of §4.1.

Each handler: parse → selector → one service → serialise. Collections are fetched through
selectors.collection_get / _get_own / _get_editable, so 404/403 (and the app rules) live in one place.
"""
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.accounts.selectors import user_get_by_name
from apps.accounts.serializers import OkSerializer
from apps.core.pipeline.api import ok, paginated_response, parse_input, parse_patch, validated
from apps.core.pipeline import versions, wire
from apps.core.domain.exceptions import NotFound, ValidationFailed
from apps.core.pipeline.pagination import LinkHeaderPagination, pagination_params_validate
from apps.core.pipeline.schema import THING_PARAM, USERNAME_PARAM
from apps.things.serializers import ThingShortSerializer
from apps.thingcollections import selectors, services
from apps.thingcollections.serializers import (
    CollectedThingsSerializer,
    CollectionAddThingInput,
    CollectionCreateInput,
    CollectionSerializer,
    CollectionThingsQuery,
    CollectionUpdateInput,
)

COLLECTION_PARAM = OpenApiParameter("collection_id", int, OpenApiParameter.PATH, description="A collection id.")
ALL_PARAM = OpenApiParameter(
    "all", str, OpenApiParameter.PATH,
    description="`true`/`1`/`all`: the full list as one array; `false`/`0`: paginated.",
)
APP_RULE = "Through an app, only the app that created the collection may do this (403 otherwise)."


def _application(request):
    # spec §4.5's app rules: the API always acts through the token's application.
    return request.auth.application


def _context(request) -> dict:
    return {"request": request, "application": _application(request)}


def _collection_response(request, collection_id, status=200) -> Response:
    collection = selectors.collection_get(collection_id, viewer=request.user)
    selectors.collection_attach_thumbnails([collection], viewer=request.user)
    return Response(CollectionSerializer(collection, context=_context(request)).data, status=status)


def _collections_response(
    request, collections, view, *, paginate: bool = True, empty_page_404_in_live_wire: bool = False
) -> Response:
    if not paginate:
        pagination_params_validate(request)  # found by make fuzz: `all=true&page=abc` was accepted
        rows = list(collections)
        selectors.collection_attach_thumbnails(rows, viewer=request.user)
        return Response(CollectionSerializer(rows, many=True, context=_context(request)).data)
    paginator = LinkHeaderPagination()
    rows = paginator.paginate_queryset(collections, request, view=view)
    if not rows and empty_page_404_in_live_wire and wire.has(versions.of(request), "EmptyPage404"):
        raise NotFound()  # the live service's answer to an empty page (apps.core.pipeline.wire)
    selectors.collection_attach_thumbnails(rows, viewer=request.user)
    data = CollectionSerializer(rows, many=True, context=_context(request)).data
    return paginator.get_paginated_response(data)


class CollectionListView(ApiView):
    @extend_schema(
        responses=CollectionSerializer(many=True), summary="List the latest collections", description="Newest first."
    )
    def get(self, request):
        return _collections_response(request, selectors.collection_list_latest(viewer=request.user), self)

    @extend_schema(
        request=CollectionCreateInput,
        responses={201: CollectionSerializer},
        summary="Create a collection",
        description="The collection remembers the app that created it: only that app may change it later.",
    )
    def post(self, request):
        data = parse_input(CollectionCreateInput, request)
        collection = services.collection_create(creator=request.user, application=_application(request), **data)
        return _collection_response(request, collection.pk, status=201)


class CollectionDetailView(ApiView):
    @extend_schema(parameters=[COLLECTION_PARAM], responses=CollectionSerializer, summary="Get a collection")
    def get(self, request, collection_id):
        return _collection_response(request, collection_id)

    @extend_schema(
        parameters=[COLLECTION_PARAM],
        request=CollectionUpdateInput,
        responses=CollectionSerializer,
        summary="Update own collection",
        description=APP_RULE,
    )
    def patch(self, request, collection_id):
        # 404/403 before 400: nothing about input rules leaks for a collection the caller may not change.
        collection = selectors.collection_get_editable(
            collection_id, viewer=request.user, application=_application(request)
        )
        data = parse_patch(
            CollectionUpdateInput, request, current=lambda: _collection_response(request, collection.pk).data
        )
        services.collection_update(
            collection=collection, user=request.user, data=data, application=_application(request)
        )
        return _collection_response(request, collection.pk)

    @extend_schema(
        parameters=[COLLECTION_PARAM],
        responses={204: None},
        summary="Delete own collection",
        description=f"No body. {APP_RULE}",
    )
    def delete(self, request, collection_id):
        collection = selectors.collection_get_editable(
            collection_id, viewer=request.user, application=_application(request)
        )
        services.collection_delete(collection=collection, user=request.user, application=_application(request))
        return Response(status=204)


class CollectionThingsView(ApiView):
    @extend_schema(
        parameters=[COLLECTION_PARAM, CollectionThingsQuery],
        responses=ThingShortSerializer(many=True),
        summary="List the Things in a collection",
        description="Only Things the caller may see. Default: newest addition first (`sort=date&order=desc`).",
    )
    def get(self, request, collection_id):
        collection = selectors.collection_get(collection_id, viewer=request.user)
        query = validated(CollectionThingsQuery(data=request.query_params))
        things = selectors.collection_list_things(collection=collection, viewer=request.user, **query)
        return paginated_response(request, things, ThingShortSerializer, view=self, empty_page_404_in_live_wire=True)


class CollectionThingView(ApiView):
    @extend_schema(
        parameters=[COLLECTION_PARAM, THING_PARAM],
        request=CollectionAddThingInput,
        responses=OkSerializer,
        summary="Add a Thing to own collection",
        description="Any app may add to any collection the user owns. 404 for a Thing the caller may not "
        "see. Adding it again is fine: a given description replaces the reason.",
    )
    def post(self, request, collection_id, thing_id):
        collection = selectors.collection_get_own(collection_id, viewer=request.user)
        thing = selectors.thing_get_collectable(thing_id, viewer=request.user)
        data = parse_input(CollectionAddThingInput, request)
        services.collection_add_thing(
            collection=collection, thing=thing, user=request.user, application=_application(request), **data
        )
        return ok()

    @extend_schema(
        parameters=[COLLECTION_PARAM, THING_PARAM],
        request=None,
        responses=OkSerializer,
        summary="Remove a Thing from own collection",
        description="Through an app, only a Thing that app added (403 otherwise). 404 if the Thing is not "
        "in the collection. The `thingiverse` wire version answers the Thing's id instead of the 'ok' object.",
    )
    def delete(self, request, collection_id, thing_id):
        collection = selectors.collection_get_own(collection_id, viewer=request.user)
        entry = selectors.collection_entry_get(collection=collection, thing_id=thing_id)
        services.collection_remove_thing(
            collection=collection, thing_id=entry.thing_id, user=request.user, application=_application(request)
        )
        if wire.has(versions.of(request), "RemovedThingId"):
            return Response(entry.thing_id)
        return ok()


def _all_flag(value: str | None) -> bool:
    if value is None:
        return False
    flag = value.strip().lower()
    if flag in ("true", "1", "yes", "all"):  # docs/decisions.md (compat): the literal `all` means true
        return True
    if flag in ("false", "0", "no", ""):
        return False
    raise ValidationFailed("all: Must be a valid boolean.", errors={"all": ["Must be a valid boolean."]})


class UserCollectionsView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        responses=CollectionSerializer(many=True),
        summary="List a user's collections",
        description="Newest first, paginated. 404 if the user does not exist.",
    )
    def get(self, request, username, all=None):
        # Flag first: a bad value is 400 whoever the user is.
        full = _all_flag(all)
        owner = user_get_by_name(username, viewer=request.user)
        collections = selectors.collection_list_for_user(owner=owner, viewer=request.user)
        return _collections_response(request, collections, self, paginate=not full, empty_page_404_in_live_wire=True)


class UserCollectionsAllView(UserCollectionsView):
    @extend_schema(
        parameters=[USERNAME_PARAM, ALL_PARAM],
        responses=CollectionSerializer(many=True),
        summary="List a user's collections, optionally all at once",
        description="`all` true: every collection as one array, no pagination. 404 if the user does not exist.",
    )
    def get(self, request, username, all=None):
        return super().get(request, username, all)


class UserCollectedThingsView(ApiView):
    @extend_schema(
        parameters=[USERNAME_PARAM],
        responses=CollectedThingsSerializer,
        summary="All the Things a user added to collections",
        description="`{count, things, collected_things}` (the same list under both names): each Thing "
        "once, only those the caller may see, most recently collected first. 404 if the user does not exist.",
    )
    def get(self, request, username):
        user = user_get_by_name(username, viewer=request.user)
        things = list(selectors.thing_list_collected_by(user=user, viewer=request.user))
        data = ThingShortSerializer(things, many=True, context={"request": request}).data
        # docs/decisions.md (compat): clients of the original API read the list as `collected_things`.
        return Response({"count": len(data), "things": data, "collected_things": data})
