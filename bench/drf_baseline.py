"""The idiomatic baseline `make bench` compares Thingyard's endpoints with (issue 17).

The same Things, tags, users and categories, served the way a typical DRF team would write it: a
`ReadOnlyModelViewSet` with `ModelSerializer`s, django-oauth-toolkit's own `OAuth2Authentication`,
`select_related`/`prefetch_related` for the relations, DRF's `PageNumberPagination` (with its COUNT), and
the search documented by Django (`SearchQuery` against the stored vector, `SearchRank` order). Nothing
here is tuned: it is the yardstick, not a competitor. No rate limit (Thingyard counts every request in
Redis; the baseline does not), which favours the baseline.

Queries per request: detail = token + Thing (creator, category joined) + tags + is_liked + is_watched;
list and search = token + COUNT + page (creator joined) + thumbnails are not looked up (the baseline
shows none, which again favours it).

Served only under `bench.urls` (`/bench/drf/…`), never by the production URLconf.
"""
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db.models import F
from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated

from apps.accounts.models import User
from apps.things.models import Like, Thing, Watch

DRF_PREFIX = "/bench/drf/things/"


class CreatorSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "username", "first_name", "last_name"]


class ThingListSerializer(serializers.ModelSerializer):
    creator = CreatorSerializer(read_only=True)

    class Meta:
        model = Thing
        fields = ["id", "name", "creator", "is_published", "is_wip", "like_count", "added"]


class ThingDetailSerializer(serializers.ModelSerializer):
    creator = CreatorSerializer(read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)
    tags = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    is_liked = serializers.SerializerMethodField()
    is_watched = serializers.SerializerMethodField()

    class Meta:
        model = Thing
        fields = [
            "id", "name", "description", "instructions", "license", "category", "tags", "creator",
            "is_published", "published_at", "is_wip", "is_private", "ratings_enabled", "like_count",
            "comment_count", "make_count", "collect_count", "file_count", "download_count", "added",
            "modified", "is_liked", "is_watched",
        ]

    def get_is_liked(self, thing) -> bool:
        return Like.objects.filter(thing=thing, user=self.context["request"].user).exists()

    def get_is_watched(self, thing) -> bool:
        return Watch.objects.filter(thing=thing, user=self.context["request"].user).exists()


class Pagination(PageNumberPagination):
    page_size = 30
    page_size_query_param = "page_size"
    max_page_size = 100


class ThingViewSet(viewsets.ReadOnlyModelViewSet):
    authentication_classes = [OAuth2Authentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = []
    pagination_class = Pagination

    def get_queryset(self):
        qs = Thing.objects.filter(is_published=True, is_hidden=False).select_related("creator")
        if self.action == "retrieve":
            return qs.select_related("category").prefetch_related("tags")
        return qs.order_by("-added", "-id")

    def get_serializer_class(self):
        return ThingDetailSerializer if self.action == "retrieve" else ThingListSerializer

    @action(detail=False, url_path=r"search/(?P<term>[^/]+)")
    def search(self, request, term=None):
        query = SearchQuery(term, search_type="websearch", config="english")
        qs = (
            self.get_queryset()
            .filter(search_vector=query)
            .annotate(rank=SearchRank(F("search_vector"), query))
            .order_by("-rank", "-like_count", "-id")
        )
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(ThingListSerializer(page, many=True).data)
