"""Thing output shapes (spec §2 + DECISIONS.md: Thing) and the inputs of the Things endpoints."""
from rest_framework import serializers

from apps.accounts.links import iso8601
from apps.accounts.serializers import UserSummarySerializer
from apps.core.licenses import license_name
from apps.things import links


class ThingShortSerializer(serializers.Serializer):
    """DECISIONS.md: the shorter Thing of list endpoints."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    url = serializers.SerializerMethodField()
    public_url = serializers.SerializerMethodField()
    thumbnail = serializers.SerializerMethodField()
    creator = UserSummarySerializer(read_only=True)
    is_published = serializers.BooleanField(read_only=True)
    is_wip = serializers.BooleanField(read_only=True)
    like_count = serializers.IntegerField(read_only=True)
    added = serializers.SerializerMethodField()

    def get_url(self, thing) -> str:
        return links.thing_public_url(thing.pk)

    def get_public_url(self, thing) -> str:
        return links.thing_public_url(thing.pk)

    def get_thumbnail(self, thing) -> str:
        return links.thing_thumbnail_url(thing)

    def get_added(self, thing) -> str:
        return iso8601(thing.added)


class ThingSerializer(ThingShortSerializer):
    """The full Thing (spec §2): every field, the sub-collection URLs under both names (compat).

    `tag_names` and `category` are additions: the tag and category names, so a client needs no second call.
    """

    modified = serializers.SerializerMethodField()
    is_private = serializers.BooleanField(read_only=True)
    ratings_enabled = serializers.BooleanField(read_only=True)
    is_liked = serializers.BooleanField(read_only=True, default=False)
    is_watched = serializers.BooleanField(read_only=True, default=False)
    comment_count = serializers.IntegerField(read_only=True)
    make_count = serializers.IntegerField(read_only=True)
    collect_count = serializers.IntegerField(read_only=True)
    file_count = serializers.IntegerField(read_only=True)
    description = serializers.CharField(read_only=True)
    instructions = serializers.CharField(read_only=True)
    license = serializers.SerializerMethodField()
    category = serializers.SerializerMethodField()
    tag_names = serializers.SerializerMethodField()
    default_image = serializers.SerializerMethodField()

    def get_modified(self, thing) -> str:
        return iso8601(thing.modified)

    def get_license(self, thing) -> str:
        return license_name(thing.license)

    def get_category(self, thing) -> str | None:
        return thing.category.name if thing.category_id else None

    def get_tag_names(self, thing) -> list[str]:
        return [tag.name for tag in thing.tags.all()]

    def get_default_image(self, thing):
        # Images arrive with uploads; until a Thing has one, DECISIONS.md's `default_image` is null.
        return getattr(thing, "default_image_data", None)

    def to_representation(self, thing):
        data = super().to_representation(thing)
        for name in links.SUB_COLLECTIONS:
            data[name] = data[f"{name}_url"] = links.thing_api_url(thing.pk, name)
        data["public_url"] = data["url"]
        return data
