"""Group and group topic output (docs/decisions.md: Group, Group topic) and the inputs of spec §4.8."""
from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.accounts.links import iso8601
from apps.accounts.serializers import UserSummarySerializer
from apps.core.pipeline import batch, wire
from apps.core.pipeline.api import api_url
from apps.groups.models import (
    DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH, RANK_MAX, SLUG_MAX_LENGTH, TOPIC_BODY_MAX_LENGTH,
    TOPIC_NAME_MAX_LENGTH,
)
from apps.groups import selectors
from apps.groups.links import group_public_url
from apps.groups.selectors import FILTERS, SORTS, THING_SORTS
from apps.things.serializers import ThingShortSerializer
from apps.uploads.links import placeholder_thumbnail_url, store_url
from apps.core.pipeline.fields import CharField, StrictCharField

# ASCII message: it is repeated in the X-Error header (docs/decisions.md: Errors).
SLUG_VALIDATOR = RegexValidator(r"^[-a-zA-Z0-9_]+\Z", "Use only letters, digits, hyphens and underscores.")


def group_api_url(group_id: int, sub: str = "") -> str:
    return api_url(f"groups/{group_id}" + (f"/{sub}" if sub else ""))


class CountUrlSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    url = serializers.CharField()


class GroupSerializer(serializers.Serializer):
    """docs/decisions.md: `id, name, slug, description, url, public_url, image, creator, is_member, members,
    things, group_topics`. Reads selectors.group_queryset's annotations."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    slug = serializers.CharField(read_only=True)
    description = serializers.CharField(read_only=True)
    url = serializers.SerializerMethodField()
    public_url = serializers.SerializerMethodField()
    image = serializers.SerializerMethodField(help_text="The group image URL, or null when none.")
    creator = UserSummarySerializer(read_only=True)
    is_member = serializers.BooleanField(read_only=True)
    members = serializers.SerializerMethodField()
    things = serializers.SerializerMethodField(help_text="`count`: the Things in it the caller may see.")
    group_topics = serializers.SerializerMethodField()

    def get_url(self, group) -> str:
        return group_api_url(group.pk)

    def get_public_url(self, group) -> str:
        return group_public_url(group)

    def get_image(self, group) -> str | None:
        return store_url(group.image) if group.image else None

    @staticmethod
    def _count_url(count, url) -> dict:
        return {"count": count, "url": url}

    @extend_schema_field(CountUrlSerializer)
    def get_members(self, group) -> dict:
        return self._count_url(group.member_count, group_api_url(group.pk, "members"))

    @extend_schema_field(CountUrlSerializer)
    def get_things(self, group) -> dict:
        return self._count_url(group.thing_count, group_api_url(group.pk, "things"))

    @extend_schema_field(CountUrlSerializer)
    def get_group_topics(self, group) -> dict:
        return self._count_url(group.topic_count, group_api_url(group.pk, "group-topics"))

    def wire_creator(self, group) -> int | None:
        return group.creator_id  # the live service's `creator` is the user's id

    def wire_image(self, group) -> str:
        return placeholder_thumbnail_url()  # in place of null (wire ProvideForNull): the group has no image

    # The group's featured Things (its three ranked slots) the caller may see, as short Things, and their
    # pictures: read once for every group of the answer (apps.core.pipeline.batch), one statement.
    def wire_featured(self, group) -> batch.Later:
        return batch.Later(self._featured, ("things", group.pk), [])

    def wire_featured_images(self, group) -> batch.Later:
        return batch.Later(self._featured, ("images", group.pk), [])

    def _featured(self, keys: list[tuple[str, int]]) -> dict[tuple[str, int], list]:
        request = self.context.get("request")
        ids = list(dict.fromkeys(group_id for _, group_id in keys))
        by_group = selectors.group_featured_things(group_ids=ids, viewer=getattr(request, "user", None))
        found: dict[tuple[str, int], list] = {}
        for group_id in ids:
            things = [ThingShortSerializer(thing, context=self.context).data for thing in by_group.get(group_id, [])]
            found[("things", group_id)] = things
            found[("images", group_id)] = [
                {"url_image": thing["preview_image"], "url_thing": thing["public_url"]} for thing in things
            ]
        return found

    def to_representation(self, group):
        return wire.apply("Group", super().to_representation(group), group, self)


def member_groups(*, owner, viewer) -> list[dict]:
    """A user's `groups` (the `thingiverse` wire version's user object, apps.accounts.profiles): each group
    they are a member of that the caller may see, as `{id, name, public_url}`, one statement."""
    return [
        {"id": group.pk, "name": group.name, "public_url": group_public_url(group)}
        for group in selectors.group_list_for_member(user=owner, viewer=viewer)
    ]


class GroupTopicSerializer(serializers.Serializer):
    """docs/decisions.md: `id, name, body, user, group_url, url, added, modified, pinned, comments`."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    body = serializers.CharField(read_only=True)
    user = UserSummarySerializer(read_only=True)
    group_url = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()
    added = serializers.SerializerMethodField()
    modified = serializers.SerializerMethodField()
    pinned = serializers.BooleanField(read_only=True)
    comments = serializers.SerializerMethodField()

    def get_group_url(self, topic) -> str:
        return group_api_url(topic.group_id)

    def get_url(self, topic) -> str:
        return api_url(f"group-topics/{topic.pk}")

    def get_added(self, topic) -> str:
        return iso8601(topic.added)

    def get_modified(self, topic) -> str:
        return iso8601(topic.modified)

    @extend_schema_field(CountUrlSerializer)
    def get_comments(self, topic) -> dict:
        # comment_count is kept by apps.comments (visible, non-deleted comments).
        return {"count": topic.comment_count, "url": api_url(f"group-topics/{topic.pk}/comments")}

    def to_representation(self, topic):
        return wire.apply("GroupTopic", super().to_representation(topic), topic, self)


# --- inputs ------------------------------------------------------------------------------------------


class GroupCreateInput(serializers.Serializer):
    """spec §2 Group: name, description, slug (strings), all required on create."""

    name = StrictCharField(max_length=NAME_MAX_LENGTH)
    description = StrictCharField(max_length=DESCRIPTION_MAX_LENGTH)
    slug = StrictCharField(
        max_length=SLUG_MAX_LENGTH,
        validators=[SLUG_VALIDATOR],
        help_text="Letters, digits, `-` and `_`; unique ignoring case.",
    )


class GroupUpdateInput(serializers.Serializer):
    """PATCH /groups/{id}/: name and/or description (parse with partial=True)."""

    name = StrictCharField(max_length=NAME_MAX_LENGTH)
    description = StrictCharField(max_length=DESCRIPTION_MAX_LENGTH)


class GroupListQuery(serializers.Serializer):
    filter = serializers.ChoiceField(choices=FILTERS, required=False, default="all")
    sort = serializers.ChoiceField(choices=SORTS, required=False, default="members",
                                   help_text="Always descending.")
    search = CharField(required=False, allow_blank=True, default="", max_length=200,
                       help_text="Name or description contains (ignoring case).")


class GroupThingsQuery(serializers.Serializer):
    sort = serializers.ChoiceField(choices=THING_SORTS, required=False, help_text="Default `newest`; not with `search`.")
    search = CharField(required=False, allow_blank=True, default="", max_length=200,
                       help_text="Name contains; relevance order.")

    def validate(self, attrs):
        # spec §4.8: sort is "not supported with search".
        if attrs.get("sort") and attrs.get("search"):
            raise serializers.ValidationError({"sort": ["Not supported with search."]})
        return attrs


class _IntegerOnlyField(serializers.IntegerField):
    """An integer and only an integer: DRF would take "2" or 2.0 (spec §2: integer 0 to 3). Refused in
    the field itself, so the OpenAPI document (apps.core.pipeline.schema) offers no text spelling either."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class GroupThingRankInput(serializers.Serializer):
    schema_complete_on_patch = True  # PATCH /groups/{id}/things/{thing_id} requires `rank`

    rank = _IntegerOnlyField(min_value=0, max_value=RANK_MAX, help_text="0 removes it from featured.")


class GroupTopicCreateInput(serializers.Serializer):
    name = StrictCharField(max_length=TOPIC_NAME_MAX_LENGTH)
    body = StrictCharField(max_length=TOPIC_BODY_MAX_LENGTH)


class GroupTopicUpdateInput(GroupTopicCreateInput):
    """PATCH /group-topics/{id}/: both optional (parse with partial=True)."""
