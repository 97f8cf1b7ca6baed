"""User output shapes (spec §2 + docs/decisions.md: User) and the inputs of the users endpoints."""

import re
from datetime import UTC, datetime

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.pipeline import wire
from apps.core.pipeline.fields import StrictCharField
from apps.core.domain.markup import markdown_render
from apps.accounts import links, rules
from apps.accounts.profiles import profile_count, profile_counts, profile_fact
from apps.core.pipeline.fields import LicenseField
from apps.core.domain.licenses import USER_LICENSES


class UserSummarySerializer(serializers.Serializer):
    """docs/decisions.md: the `creator`/`user` summary other resources embed. Other apps import this."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(source="username", read_only=True)
    first_name = serializers.CharField(read_only=True)
    last_name = serializers.CharField(read_only=True)
    url = serializers.SerializerMethodField()
    public_url = serializers.SerializerMethodField()
    thumbnail = serializers.SerializerMethodField()

    def get_url(self, user) -> str:
        return links.user_api_url(user)

    def get_public_url(self, user) -> str:
        return links.user_public_url(user)

    def get_thumbnail(self, user) -> str:
        return links.user_thumbnail_url(user)

    def to_representation(self, user):
        # Embedded in every row of every list: built directly, the declared fields stay for the schema.
        if type(self) is not UserSummarySerializer:
            return super().to_representation(user)
        return {
            "id": user.pk,
            "name": user.username,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "url": links.user_api_url(user),
            "public_url": links.user_public_url(user),
            "thumbnail": links.user_thumbnail_url(user),
        }


class UserSerializer(UserSummarySerializer):
    """The user object (spec §2). `email` and `default_license` only when the viewer is the user."""

    OWNER_ONLY = ("email", "default_license")
    schema_optional_fields = OWNER_ONLY  # the OpenAPI document must not require what others never get

    full_name = serializers.CharField(read_only=True)
    cover_image = serializers.SerializerMethodField()
    bio = serializers.CharField(read_only=True)
    location = serializers.CharField(read_only=True)
    registered = serializers.SerializerMethodField()
    last_active = serializers.SerializerMethodField()
    things = serializers.SerializerMethodField()
    copies = serializers.SerializerMethodField()
    likes = serializers.SerializerMethodField()
    things_url = serializers.SerializerMethodField()
    copies_url = serializers.SerializerMethodField()
    likes_url = serializers.SerializerMethodField()
    email = serializers.EmailField(read_only=True, help_text="Only for the user themselves.")
    default_license = serializers.CharField(read_only=True, help_text="Only for the user themselves.")

    def get_cover_image(self, user) -> str:
        return links.user_cover_url(user)

    @extend_schema_field(OpenApiTypes.DATETIME)
    def get_registered(self, user):
        return links.iso8601(user.date_joined)

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_last_active(self, user):
        return links.iso8601(user.last_active)

    # spec §2: things, copies and likes are the API URLs of those lists; docs/decisions.md adds *_url twins.
    def get_things(self, user) -> str:
        return links.user_api_url(user, "things")

    def get_copies(self, user) -> str:
        return links.user_api_url(user, "copies")

    def get_likes(self, user) -> str:
        return links.user_api_url(user, "likes")

    get_things_url = get_things
    get_copies_url = get_copies
    get_likes_url = get_likes

    def to_representation(self, user):
        data = super().to_representation(user)
        viewer = self.context.get("viewer")
        if viewer is None or viewer.pk != user.pk:
            for field in self.OWNER_ONLY:
                data.pop(field, None)
        return wire.apply("User", data, user, self)

    # --- what wire versions other than `spec` compute (apps.core.pipeline.wire: Provide) -------------------------

    def wire_bio_html(self, user) -> str:
        return markdown_render(user.bio or "")

    def wire_count_of_designs(self, user) -> int:
        # What anyone may see of theirs: a private Thing is its creator's alone (it is not counted either).
        return user.things.filter(is_published=True, is_hidden=False, is_private=False).count()

    def wire_count_of_followers(self, user) -> int:
        return user.follower_links.count()

    def wire_count_of_following(self, user) -> int:
        return user.following_links.count()

    # What the caller reads in the user's lists of copies, likes and collections: each count is the length
    # of that list's queryset for this caller (apps.accounts.profiles: the apps above register them).
    def wire_make_count(self, user) -> int:
        return profile_count("make_count", self._profile_counts(user))

    def wire_like_count(self, user) -> int:
        return profile_count("like_count", self._profile_counts(user))

    def wire_collection_count(self, user) -> int:
        return profile_count("collection_count", self._profile_counts(user))

    # A favorite is a liked Thing (/users/{username}/favorites lists the same rows as /likes).
    def wire_favorite_count(self, user) -> int:
        return self.wire_like_count(user)

    def wire_has_favorite(self, user) -> bool:
        return self.wire_like_count(user) > 0

    def _profile_counts(self, user) -> dict[str, int]:
        # One statement for the three counts of one user (the serializer answers one user at a time).
        kept = self.__dict__.get("_counts")
        if kept is None or kept[0] != user.pk:
            kept = (user.pk, profile_counts(owner=user, viewer=self.context.get("viewer")))
            self.__dict__["_counts"] = kept
        return kept[1]

    def wire_groups(self, user) -> list[dict]:
        # The groups they are a member of that the caller may see (apps.groups registers the answer).
        return profile_fact("groups", owner=user, viewer=self.context.get("viewer"), default=[])

    def wire_is_following(self, user) -> bool:
        # Whether the caller follows this user (never for an anonymous caller or oneself).
        viewer = self.context.get("viewer")
        if viewer is None or not viewer.is_authenticated or viewer.pk == user.pk:
            return False
        return user.follower_links.filter(follower_id=viewer.pk).exists()


def _profile_field(name: str) -> StrictCharField:
    return StrictCharField(required=False, allow_blank=True, max_length=rules.PROFILE_FIELD_MAX_LENGTHS[name])


class UserUpdateInput(serializers.Serializer):
    """spec §4.1 PATCH /users/{username}/: all optional strings. Unknown keys are ignored."""

    first_name = _profile_field("first_name")
    last_name = _profile_field("last_name")
    bio = _profile_field("bio")
    location = _profile_field("location")
    default_license = LicenseField(
        licenses=USER_LICENSES,
        required=False,
        help_text="A user license code (spec §2), or its display name.",
    )


_TIMESTAMP_RE = re.compile(
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?P<tz>[Zz]|[+-]\d{2}:?\d{2})?$"
)
# A `+` left unencoded in a query string arrives as a space: `...T12:00:00 01:00` meant `+01:00`.
_SPACE_OFFSET_RE = re.compile(r" (\d{2}:?\d{2})$")


def parse_timestamp(raw: str) -> datetime | None:
    """An aware datetime from the spec's timestamp format, or None when it is not one."""
    text = _SPACE_OFFSET_RE.sub(r"+\1", raw.strip())
    match = _TIMESTAMP_RE.match(text)
    if match is None:
        return None
    try:
        value = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:  # well-shaped but impossible, e.g. month 13 or offset +25:00
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)  # spec §4.1: the timestamp is UTC
    try:
        # As UTC: PostgreSQL refuses offsets beyond ±15:59 that Python accepts (found by make fuzz).
        return value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before year 1 in UTC
        return None


@extend_schema_field(OpenApiTypes.DATETIME)
class TimestampField(serializers.Field):
    """spec §4.1 event-count: `YYYY-MM-DDThh:mm:ssTZD`, TZD being `Z` or `±hh:mm` (naive means UTC)."""

    default_error_messages = {
        "invalid": "Use the format YYYY-MM-DDThh:mm:ssTZD, e.g. 2026-11-20T12:00:00+00:00."
    }

    def to_internal_value(self, data):
        value = parse_timestamp(data) if isinstance(data, str) else None
        if value is None:
            self.fail("invalid")
        return value

    def to_representation(self, value):
        return links.iso8601(value)


class UserEventCountInput(serializers.Serializer):
    timestamp = TimestampField(required=False, help_text="Count events after this time; all when absent.")


class CountSerializer(serializers.Serializer):
    count = serializers.IntegerField()


class OkSerializer(serializers.Serializer):
    ok = serializers.BooleanField(default=True)
