"""Thing output shapes (spec §2 + docs/decisions.md: Thing) and the inputs of the Things endpoints."""
from urllib.parse import quote

from django.templatetags.static import static
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.pipeline import batch, versions, wire
from apps.core.pipeline.fields import CharField, StrictCharField
from apps.accounts.links import iso8601
from apps.accounts.serializers import UserSummarySerializer
from apps.core.pipeline.api import api_url, site_url
from apps.core.pipeline.fields import LicenseField
from apps.core.domain.licenses import THING_LICENSES, license_name
from apps.core.domain.markup import detail_parts, details_html
from apps.things import links, rules, selectors
from apps.things.models import documents_html
from apps.things.printsettings import PrintSettingsError, print_settings_output, print_settings_parse
from apps.core.pipeline.api import MAX_ID


# The creator's summary in every short and full Thing: one instance (its output reads no context), not a
# serializer constructed per row.
_USER_SUMMARY = UserSummarySerializer()


class ThingShortSerializer(serializers.Serializer):
    """docs/decisions.md: the shorter Thing of list endpoints."""

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

    def to_representation(self, thing):
        # Lists serialise up to 100 of these per request; built directly (DRF's per-field machinery
        # cost ~70 µs a row). The declared fields above still document the shape in the schema.
        if type(self) is not ThingShortSerializer:
            return super().to_representation(thing)
        if isinstance(thing, dict):
            return thing  # already this shape: a cached short form (apps.things.bodycache)
        return wire.apply("ThingShort", self._short_built(thing), thing, self)

    def _short_built(self, thing) -> dict:
        """The declared fields above, built directly, before any wire version's changes."""
        public_url = links.thing_public_url(thing.pk)
        return {
            "id": thing.pk,
            "name": thing.name,
            "url": public_url,
            "public_url": public_url,
            "thumbnail": links.thing_thumbnail_url(thing),
            "creator": _USER_SUMMARY.to_representation(thing.creator),
            "is_published": thing.is_published,
            "is_wip": thing.is_wip,
            "like_count": thing.like_count,
            "added": iso8601(thing.added),
        }

    # --- what the `thingiverse` wire version's short Thing adds (apps.core.pipeline.wire: Provide) ----------
    # Columns of the list's own statement (selectors.SHORT_THING_FIELDS) and the pictures it joins: no
    # statement of their own.

    def wire_created_at(self, thing) -> str:
        return iso8601(thing.added)

    def wire_preview_image(self, thing) -> str:
        return links.thing_preview_url(thing)

    def wire_is_private(self, thing) -> int:
        return 1 if thing.is_private else 0

    def wire_collect_count(self, thing) -> int:
        return thing.collect_count

    def wire_make_count(self, thing) -> int:
        return thing.make_count

    def wire_comment_count(self, thing) -> int:
        return thing.comment_count

    def wire_tags(self, thing) -> list:
        # Filled before the answer is rendered, for all its short Things in one statement (however many
        # sources built them): a list of 100 would otherwise cost 100 statements.
        return batch.later(_short_tags, (versions.of_context(self.context), thing.pk))


def _short_tags(keys: list[tuple[str, int]]) -> dict[tuple[str, int], list[dict]]:
    """batch's loader of short Things' `tags`: the tag objects of each (wire version, Thing id), with the
    counts everyone sees (the short form is kept for every viewer, as the full Thing's body is)."""
    tags = selectors.thing_tags_of(list({thing_id for _, thing_id in keys}))
    return {
        (version, thing_id): list(TagSerializer(tags.get(thing_id, ()), many=True, context={"wire_version": version}).data)
        for version, thing_id in keys
    }


class FavoriteSerializer(ThingShortSerializer):
    """A Favorite (spec §4.1 /users/{username}/favorites): the short Thing the user liked, plus
    `favorited`, when they liked it. Favorites and likes are one thing, as in the original API."""

    favorited = serializers.SerializerMethodField()

    def get_favorited(self, thing) -> str:
        return iso8601(thing.favorited)

    def to_representation(self, thing):
        data = ThingShortSerializer(context=self.context).to_representation(thing)
        data["favorited"] = iso8601(thing.favorited)
        return data


class PrintSettingsSerializer(serializers.Serializer):
    """A Thing's print settings (docs: DECISIONS.md round 3): each key null when unset."""

    printer = CharField(allow_null=True, max_length=100)
    material = CharField(allow_null=True, max_length=50, help_text="e.g. PLA, PETG; a search filter.")
    layer_height_mm = serializers.FloatField(allow_null=True, min_value=0.01, max_value=5)
    supports = serializers.BooleanField(allow_null=True)
    infill_percent = serializers.FloatField(allow_null=True, min_value=0, max_value=100)
    nozzle_mm = serializers.FloatField(allow_null=True, min_value=0.05, max_value=5)
    notes = CharField(allow_null=True, max_length=2000)


class PrintSettingsInputSerializer(PrintSettingsSerializer):
    """print_settings as POST/PATCH take it: any of the keys (each a value or null), none required."""

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            field.required = False
            if isinstance(field, serializers.CharField):
                field.allow_blank = True  # blank clears the key, as null does (printsettings._value)
        return fields


@extend_schema_field(PrintSettingsInputSerializer(allow_null=True))
class PrintSettingsField(serializers.Field):
    """print_settings in: an object of some of the keys (each a value or null), or null for none. Types
    are strict (a number is never a string here) and each key's range is checked (printsettings.py)."""

    writable_object = True  # a PATCH that sends the object back changes it (core.api.parse_patch)

    def to_internal_value(self, data):
        try:
            return print_settings_parse(data)
        except PrintSettingsError as exc:
            raise serializers.ValidationError(str(exc)) from None

    def to_representation(self, value):
        return print_settings_output(value)


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
    print_settings = serializers.SerializerMethodField()
    # Served in every wire version (docs/decisions.md: Wire versions, the additive fields).
    description_html = serializers.SerializerMethodField()
    instructions_html = serializers.SerializerMethodField()
    details = serializers.SerializerMethodField(help_text="HTML: a Summary section, then the other sections.")
    download_count = serializers.IntegerField(read_only=True)
    view_count = serializers.SerializerMethodField(help_text="Always 0: Thingyard does not count page views.")
    remix_count = serializers.SerializerMethodField(help_text="Derivatives everyone may see.")
    root_comment_count = serializers.SerializerMethodField(help_text="Top-level comments shown.")

    def get_modified(self, thing) -> str:
        return iso8601(thing.modified)

    def get_license(self, thing) -> str:
        return license_name(thing.license)

    def get_category(self, thing) -> str | None:
        return thing.category.name if thing.category_id else None

    def get_tag_names(self, thing) -> list[str]:
        names = getattr(thing, "tag_name_list", None)  # selectors._with_tag_names, on PostgreSQL
        return list(names) if names is not None else [tag.name for tag in thing.tags.all()]

    def get_default_image(self, thing) -> dict | None:
        return links.thing_default_image(thing)

    @extend_schema_field(PrintSettingsSerializer(allow_null=True))
    def get_print_settings(self, thing) -> dict | None:
        return print_settings_output(thing.print_settings)

    def get_description_html(self, thing) -> str:
        return documents_html(thing)[0]

    def get_instructions_html(self, thing) -> str:
        return documents_html(thing)[1]

    def get_details(self, thing, documents: tuple[str, str] | None = None) -> str:
        return details_html(_detail_parts(thing, documents))

    def get_view_count(self, thing) -> int:
        return 0

    def get_remix_count(self, thing) -> int:
        return selectors.thing_remix_count(thing)

    def get_root_comment_count(self, thing) -> int:
        return selectors.thing_root_comment_count(thing)

    # --- what wire versions other than `spec` compute (apps.core.pipeline.wire: Provide) -------------------------

    def wire_tags(self, thing) -> list[dict]:
        return list(TagSerializer(selectors.thing_tag_list(thing=thing), many=True, context=self.context).data)

    def wire_ancestors(self, thing) -> list[dict]:
        # The ancestors everyone may see: the body is cached for every viewer (apps.things.bodies).
        ancestors = selectors.thing_list_ancestors(thing=thing, viewer=None)
        return list(ThingShortSerializer(ancestors, many=True, context=self.context).data)

    def wire_details_parts(self, thing) -> list[dict]:
        return _detail_parts(thing)

    def wire_allows_derivatives(self, thing) -> bool:
        return thing.license not in NO_DERIVATIVES_LICENSES

    def wire_is_derivative(self, thing) -> bool:
        return thing.ancestors.exists()

    def wire_can_comment(self, thing) -> bool:
        return bool(thing.is_published and not thing.is_hidden)

    def wire_is_featured(self, thing) -> bool:
        return bool(thing.is_featured)

    def to_representation(self, thing):
        if type(self) is ThingSerializer and not isinstance(thing, dict):
            data = self._fields_built(thing)
        else:
            data = serializers.Serializer.to_representation(self, thing)
        for name in links.SUB_COLLECTIONS:
            data[name] = data[f"{name}_url"] = links.thing_api_url(thing.pk, name)
        data["public_url"] = data["url"]
        return wire.apply("Thing", data, thing, self)

    def _fields_built(self, thing) -> dict:
        """What DRF's per-field machinery makes of the declared fields above, built directly (issue 24,
        first reads): binding the 33 fields (a deep copy of each) cost about a third of an uncached
        detail request. Same keys, same order, same values: test_serializers checks it against DRF's own
        output for every Thing of its matrix."""
        data = self._short_built(thing)
        documents = documents_html(thing)  # once: the two fields and `details` show the same HTML
        data.update({
            "modified": self.get_modified(thing),
            "is_private": _or_none(bool, thing.is_private),
            "ratings_enabled": _or_none(bool, thing.ratings_enabled),
            "is_liked": _or_none(bool, getattr(thing, "is_liked", False)),
            "is_watched": _or_none(bool, getattr(thing, "is_watched", False)),
            "comment_count": _or_none(int, thing.comment_count),
            "make_count": _or_none(int, thing.make_count),
            "collect_count": _or_none(int, thing.collect_count),
            "file_count": _or_none(int, thing.file_count),
            "description": _or_none(str, thing.description),
            "instructions": _or_none(str, thing.instructions),
            "license": self.get_license(thing),
            "category": self.get_category(thing),
            "tag_names": self.get_tag_names(thing),
            "default_image": self.get_default_image(thing),
            "print_settings": self.get_print_settings(thing),
            "description_html": documents[0],
            "instructions_html": documents[1],
            "details": self.get_details(thing, documents),
            "download_count": _or_none(int, thing.download_count),
            "view_count": self.get_view_count(thing),
            "remix_count": self.get_remix_count(thing),
            "root_comment_count": self.get_root_comment_count(thing),
        })
        return data


def _or_none(convert, value):
    """A read-only field's output as DRF gives it: None stays None, else the field's conversion."""
    return None if value is None else convert(value)


# Licenses whose Things may not be remixed (a Thing's `allows_derivatives`).
NO_DERIVATIVES_LICENSES = frozenset({"cc-nd", "cc-nc-nd"})


def _detail_parts(thing, documents: tuple[str, str] | None = None) -> list[dict]:
    """The sections of a Thing's page, as the live service listed them: Summary (the description), then
    the print instructions when there are any. `documents`: documents_html(thing), when already read."""
    description, instructions = documents or documents_html(thing)
    sections = [("summary", "Summary", description)]
    if thing.instructions:
        sections.append(("instructions", "Instructions", instructions))
    return detail_parts(*sections)


class TagSerializer(serializers.Serializer):
    """docs/decisions.md Tag: `{name, tag, url, count, things_url}`. Expects a Tag annotated with
    `thing_count` (published Things carrying it). `name` is already normalised (spec §2), so `tag`,
    the form a client puts in a path, is the same string."""

    name = serializers.CharField(read_only=True)
    tag = serializers.CharField(source="name", read_only=True)
    url = serializers.SerializerMethodField()
    count = serializers.IntegerField(source="thing_count", read_only=True)
    things_url = serializers.SerializerMethodField()

    def get_url(self, tag) -> str:
        return api_url(f"tags/{quote(tag.name)}")

    def get_things_url(self, tag) -> str:
        return api_url(f"tags/{quote(tag.name)}/things")

    def wire_absolute_url(self, tag) -> str:
        return f"/tag:{tag.name}"  # the site-relative page, as the live service wrote it

    def to_representation(self, tag):
        return wire.apply("Tag", super().to_representation(tag), tag, self)


class CategorySerializer(serializers.Serializer):
    """docs/decisions.md Category: `{name, slug, url, count, things_url, thumbnail}`. Expects a Category
    annotated with `thing_count` (published Things in it and its sub-categories)."""

    name = serializers.CharField(read_only=True)
    slug = serializers.CharField(read_only=True)
    url = serializers.SerializerMethodField()
    count = serializers.IntegerField(source="thing_count", read_only=True)
    things_url = serializers.SerializerMethodField()
    thumbnail = serializers.SerializerMethodField()

    def get_url(self, category) -> str:
        return api_url(f"categories/{category.slug}")

    def get_things_url(self, category) -> str:
        return api_url(f"categories/{category.slug}/things")

    def get_thumbnail(self, category) -> str:
        # Categories carry no image of their own yet: the Things' placeholder, never an empty string.
        return site_url(static(links.PLACEHOLDER_THUMBNAIL))

    def wire_id(self, category) -> int:
        return category.pk

    def to_representation(self, category):
        return wire.apply("Category", super().to_representation(category), category, self)


# --- inputs ------------------------------------------------------------------------------------------


class TagInputField(StrictCharField):
    """A tag name; in a wire version whose Things show tags as objects (apps.core.pipeline.wire "ThingInput"),
    also such an object, read as its `name`."""

    def to_internal_value(self, data):
        if isinstance(data, dict) and wire.has(versions.of_context(self.context), "ThingInput"):
            data = data.get("name")
        return super().to_internal_value(data)


@extend_schema_field({
    "oneOf": [{"type": "string", "maxLength": 100}, {"type": "integer", "minimum": 1, "maximum": MAX_ID}],
    "nullable": True,
})
class CategoryInputField(StrictCharField):
    """A category's full name (or slug), as spec §2 says; also its id, as the live service's PATCH takes it
    (its document: "a category id … also supports … the full category name")."""

    default_error_messages = {"invalid": "Use a category's full name or its id."}

    def to_internal_value(self, data):
        if isinstance(data, int) and not isinstance(data, bool):
            if not 1 <= data <= MAX_ID:
                self.fail("invalid")
            return data
        return super().to_internal_value(data)

    def run_validators(self, value):
        if not isinstance(value, int):  # the length validators are a name's
            super().run_validators(value)


def _text_field(**kwargs) -> StrictCharField:
    return StrictCharField(required=False, allow_blank=True, max_length=rules.THING_TEXT_MAX_LENGTH, **kwargs)


class _ThingWriteInput(serializers.Serializer):
    """The fields POST and PATCH share (spec §4.2). Unknown keys are ignored, `is_published` included:
    publishing has its own endpoint."""

    name = StrictCharField(max_length=rules.THING_NAME_MAX_LENGTH)
    license = LicenseField(
        licenses=THING_LICENSES,
        required=False,
        help_text="A Thing license code (spec §2), or its display name as a Thing shows it.",
    )
    category = CategoryInputField(
        required=False,
        allow_blank=True,
        allow_null=True,
        max_length=100,
        help_text="The category's full name, matched ignoring case, or its id; empty or null for none.",
    )
    description = _text_field()
    instructions = _text_field(help_text='The field the spec prints as "the service" (docs/decisions.md).')
    is_wip = serializers.BooleanField(required=False)
    tags = serializers.ListField(
        child=TagInputField(allow_blank=True, trim_whitespace=False, max_length=rules.TAG_MAX_LENGTH * 2),
        required=False,
        max_length=rules.THING_MAX_TAGS * 2,
        help_text="Replaces every tag. Each is normalised (spec §2); duplicates ignoring case are dropped.",
    )
    print_settings = PrintSettingsField(
        required=False, allow_null=True,
        help_text="Some of {printer, material, layer_height_mm, supports, infill_percent, nozzle_mm, notes}; "
        "PATCH merges them over the current ones (a key given as null is cleared); null clears them all.",
    )


class ThingCreateInput(_ThingWriteInput):
    """spec §4.2 POST /things/. `license` defaults to the creator's default license (a Thing code)."""

    ancestors = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        max_length=rules.THING_MAX_ANCESTORS,
        help_text="Ids of Things this one derives from; each must be visible to the caller.",
    )


class ThingUpdateInput(_ThingWriteInput):
    """spec §4.2 PATCH /things/{id}/: all optional (parse with partial=True)."""


class WatchingSerializer(serializers.Serializer):
    watching = serializers.BooleanField()
