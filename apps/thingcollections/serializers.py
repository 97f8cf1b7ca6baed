"""Collection output (docs/decisions.md: Collection) and the inputs of the collections endpoints."""
from functools import cache

from django.templatetags.static import static
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.accounts.links import iso8601
from apps.accounts.serializers import UserSummarySerializer
from apps.core.pipeline import wire
from apps.core.pipeline.api import api_url, site_url
from apps.core.domain.markup import markdown_render
from apps.things import links as thing_links
from apps.core.pipeline.fields import StrictCharField
from apps.things.serializers import ThingShortSerializer
from apps.thingcollections import rules
from apps.thingcollections.models import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH, REASON_MAX_LENGTH
from apps.thingcollections.selectors import ORDERS, SORTS


@cache
def _placeholder_url() -> str:
    return site_url(static(thing_links.PLACEHOLDER_THUMBNAIL))


def collection_api_url(collection_id: int) -> str:
    return api_url(f"collections/{collection_id}")


def collection_public_url(collection_id: int) -> str:
    """The collection's page on the site (`absolute_url`)."""
    return site_url(f"collection:{collection_id}")


class CollectionSerializer(serializers.Serializer):
    """docs/decisions.md: `id, name, description, url, thumbnail, count, is_editable, added, modified,
    creator`, plus the fields the original API's published schema requires (compat): `absolute_url`,
    `preview_image`, `is_watched`, `is_featured`, `featured_thing_id`, `featured_thing`. Reads
    selectors.collection_queryset's annotations and collection_attach_thumbnails; context: `request`
    and `application` (the calling app; None for the site)."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    description = serializers.CharField(read_only=True)
    url = serializers.SerializerMethodField()
    thumbnail = serializers.SerializerMethodField(
        help_text="The thumbnail of the newest Thing in it the caller may see, else a placeholder."
    )
    count = serializers.IntegerField(
        source="thing_count", read_only=True, help_text="How many Things in it the caller may see."
    )
    is_editable = serializers.SerializerMethodField(
        help_text="Whether the caller may PATCH or DELETE it: their own, created by this app."
    )
    added = serializers.SerializerMethodField()
    modified = serializers.SerializerMethodField()
    creator = UserSummarySerializer(read_only=True)
    absolute_url = serializers.SerializerMethodField(help_text="The collection's page on the site.")
    preview_image = serializers.SerializerMethodField(
        help_text="A larger picture of the featured Thing (its default image's preview size), else a "
        "placeholder."
    )
    is_watched = serializers.SerializerMethodField(
        help_text="Always false: collections cannot be watched in Thingyard (Things can)."
    )
    is_featured = serializers.BooleanField(read_only=True, help_text="Featured by the site's staff.")
    featured_thing_id = serializers.SerializerMethodField(
        help_text="The Thing the collection shows as its cover: the newest one in it the caller may see; "
        "null when none."
    )
    featured_thing = serializers.SerializerMethodField()

    def get_url(self, collection) -> str:
        return collection_api_url(collection.pk)

    def get_absolute_url(self, collection) -> str:
        return collection_public_url(collection.pk)

    def get_thumbnail(self, collection) -> str:
        thing = getattr(collection, "thumbnail_thing", None)
        return thing_links.thing_thumbnail_url(thing) if thing is not None else _placeholder_url()

    def get_preview_image(self, collection) -> str:
        thing = getattr(collection, "thumbnail_thing", None)
        return thing_links.thing_preview_url(thing) if thing is not None else _placeholder_url()

    def get_is_watched(self, collection) -> bool:
        return False

    def get_featured_thing_id(self, collection) -> int | None:
        thing = getattr(collection, "thumbnail_thing", None)
        return thing.pk if thing is not None else None

    @extend_schema_field(ThingShortSerializer(allow_null=True))
    def get_featured_thing(self, collection) -> dict | None:
        thing = getattr(collection, "thumbnail_thing", None)
        return ThingShortSerializer(thing, context=self.context).data if thing is not None else None

    def get_is_editable(self, collection) -> bool:
        request = self.context["request"]
        return rules.collection_can_edit(request.user, collection, application=self.context.get("application"))

    def get_added(self, collection) -> str:
        return iso8601(collection.added)

    def get_modified(self, collection) -> str:
        return iso8601(collection.modified)

    def wire_description_html(self, collection) -> str:
        return markdown_render(collection.description or "")

    def to_representation(self, collection):
        return wire.apply("Collection", super().to_representation(collection), collection, self)


class CollectedThingsSerializer(serializers.Serializer):
    """spec §4.1 all-collected-things: "object with all Things the user added to collections"."""

    count = serializers.IntegerField()
    things = ThingShortSerializer(many=True)
    collected_things = ThingShortSerializer(
        many=True, help_text="The same Things again, under the name clients of the original API read."
    )


# --- inputs ------------------------------------------------------------------------------------------


class CollectionCreateInput(serializers.Serializer):
    """spec §2/§4.5: name (string); description (string, optional)."""

    name = StrictCharField(max_length=NAME_MAX_LENGTH)
    description = StrictCharField(required=False, allow_blank=True, max_length=DESCRIPTION_MAX_LENGTH)


class CollectionUpdateInput(CollectionCreateInput):
    """PATCH /collections/{id}/: both optional (parse with partial=True)."""


class CollectionAddThingInput(serializers.Serializer):
    description = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=REASON_MAX_LENGTH,
        help_text="Why the Thing is in the collection. Adding it again with a description replaces it.",
    )


class CollectionThingsQuery(serializers.Serializer):
    sort = serializers.ChoiceField(choices=SORTS, required=False, default="date",
                                   help_text="`date` added to the collection, or `name`.")
    order = serializers.ChoiceField(choices=ORDERS, required=False, default="desc")
