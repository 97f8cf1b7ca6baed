"""Inputs of the search endpoints (query-string parameters) and the library item shape."""
import re
from datetime import UTC, datetime, time

from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from apps.core.domain.licenses import THING_LICENSE_CHOICES
from apps.core.pipeline.fields import CharField
from apps.search.selectors import AUTOCOMPLETE_DEFAULT, THING_SORTS
from apps.things.serializers import ThingShortSerializer

# A `+` left unencoded in a query string arrives as a space: `2026-01-01T12:00 01:00` meant `+01:00`.
_SPACE_OFFSET = re.compile(r"(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$")


# The shapes taken: ISO 8601's extended form, a date or a date-time (seconds, a fraction and the offset
# optional; no offset is UTC). Python's own parser also takes the basic form (`20260131`), week dates
# (`2026-W05`) and stranger text (`11700321.0` read as 1170-03-21), which the OpenAPI document's `date`
# and `date-time` exclude (found by make fuzz, issue 24's thingiverse run).
_EXTENDED_ISO = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?", re.ASCII
)


_DATE_OR_DATE_TIME = {
    "anyOf": [{"type": "string", "format": "date-time"}, {"type": "string", "format": "date"}],
    "description": "An ISO 8601 date or date-time.",
}


@extend_schema_field(_DATE_OR_DATE_TIME)
class LenientDateTimeField(serializers.Field):
    """An ISO 8601 date (`2026-01-31`, midnight UTC) or date-time (no offset means UTC)."""

    default_error_messages = {"invalid": "Use an ISO 8601 date (YYYY-MM-DD) or date-time."}

    def to_internal_value(self, data):
        text = _SPACE_OFFSET.sub(r"\1+\2", str(data).strip())
        if not _EXTENDED_ISO.fullmatch(text):
            self.fail("invalid")
        try:
            value = parse_datetime(text)
            if value is None:
                day = parse_date(text)
                value = datetime.combine(day, time.min) if day is not None else None
        except ValueError:  # well-shaped but impossible: month 13, offset +25:00
            value = None
        if value is None:
            self.fail("invalid")
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        try:
            # As UTC: PostgreSQL refuses offsets beyond ±15:59 that Python accepts (found by make fuzz).
            return value.astimezone(UTC)
        except OverflowError:  # before year 1 once in UTC
            self.fail("invalid")

    def to_representation(self, value):
        return value.isoformat()


# The filters' examples in the OpenAPI document form a query that finds something in the demo data
# (`make run`), and a valid one: a category that exists (spec §2's example slug), a window that is not
# empty. A client trying the document's examples, or a fuzzer starting from them, gets past validation.
@extend_schema_field({**_DATE_OR_DATE_TIME, "example": "2020-01-01"})
class _PostedAfterField(LenientDateTimeField):
    pass


@extend_schema_field({**_DATE_OR_DATE_TIME, "example": "2030-01-01T00:00:00+00:00"})
class _PostedBeforeField(LenientDateTimeField):
    pass


@extend_schema_field({"type": "string", "minLength": 1, "maxLength": 120, "example": "replacement-parts"})
class _CategorySlugField(CharField):
    pass


class SearchTypeField(CharField):
    """`type`: the name of a registered search type (apps.search.registry checks it). `only` narrows
    what the OpenAPI document lists, for the endpoints that search one type."""

    def __init__(self, *, only: str | None = None, **kwargs):
        self.only = only
        super().__init__(**kwargs)


class SearchTypeFieldSchema(OpenApiSerializerFieldExtension):
    """The registered types as an enum, read when the document is built: apps register theirs at
    startup (apps.search.registry)."""

    target_class = SearchTypeField

    def map_serializer_field(self, auto_schema, direction):
        from apps.search.registry import SEARCH_TYPES

        names = [self.target.only] if self.target.only else sorted(SEARCH_TYPES)
        return {"type": "string", "enum": names}


class SearchQueryInput(serializers.Serializer):
    """Query parameters of the search endpoints beyond the term (spec §4.7 leaves them to us)."""

    type = SearchTypeField(required=False, max_length=40, help_text="What to search: `things` by default.")
    sort = serializers.ChoiceField(choices=THING_SORTS, required=False)
    license = serializers.ChoiceField(
        choices=THING_LICENSE_CHOICES, required=False, help_text="A license code."
    )
    category = _CategorySlugField(
        required=False, max_length=120,
        help_text="A category slug (`GET /categories/` lists them; a category's name reads as its slug); "
        "includes its sub-categories. A category that does not exist is 400 `VALIDATION_FAILED`.",
    )
    is_wip = serializers.BooleanField(required=False)
    has_makes = serializers.BooleanField(required=False)
    material = CharField(
        required=False, max_length=50, help_text="Things whose print settings name this material (any case), e.g. PETG."
    )
    posted_after = _PostedAfterField(
        required=False, help_text="Added at or after (ISO 8601; a date is midnight UTC)."
    )
    posted_before = _PostedBeforeField(
        required=False, help_text="Added before (ISO 8601; a date is midnight UTC)."
    )

    def validate(self, attrs):
        after, before = attrs.get("posted_after"), attrs.get("posted_before")
        if after is not None and before is not None and after >= before:
            raise serializers.ValidationError({"posted_before": ["Must be later than posted_after."]})
        return attrs


class ThingSearchQueryInput(SearchQueryInput):
    """Documentation of the query of the endpoints that search Things only (library, tag, a user's
    Things): their views parse SearchQueryInput and refuse another `type` (400)."""

    type = SearchTypeField(required=False, only="things", help_text="Only `things` here.")


class AutocompleteQueryInput(serializers.Serializer):
    per_page = serializers.IntegerField(required=False, default=AUTOCOMPLETE_DEFAULT, help_text="At most 20.")


class LibraryThingSerializer(ThingShortSerializer):
    """A library item: the short Thing plus `type`, so collections can join the same list later."""

    type = serializers.SerializerMethodField()

    def get_type(self, thing) -> str:
        return "thing"


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class _ThingIdOrTagNameField(serializers.Field):
    pass


class AutocompleteItemSerializer(serializers.Serializer):
    """Documentation shape of an autocomplete item (the selector builds plain dicts)."""

    type = serializers.ChoiceField(choices=["thing", "tag"])
    id = _ThingIdOrTagNameField(help_text="The Thing id (integer), or the tag name (string).")
    name = serializers.CharField()
    url = serializers.URLField(help_text="The Thing's site page, or the tag's API URL.")


@extend_schema_serializer(many=False)  # the answer is not wrapped in an array: it is one already, or the object
class SearchAnswer(serializers.Serializer):
    """Documentation of a search answer (docs/decisions.md: Search shape): the spec's array of `item`, or,
    when the request names `type`, the modern `{"total", "hits"}` holding the same page. A paginated list
    either way (apps.core.pipeline.schema: `page`/`per_page`, the Link header, a `…_list` operationId)."""

    paginated_list = True

    def __init__(self, item, name: str, **kwargs):
        self.item, self.answer_name = item, name
        super().__init__(**kwargs)


class SearchAnswerSchema(OpenApiSerializerExtension):
    target_class = SearchAnswer

    def get_name(self, auto_schema, direction):
        return self.target.answer_name

    def get_identity(self, auto_schema, direction):
        return self.target.answer_name

    def map_serializer(self, auto_schema, direction):
        items = auto_schema.resolve_serializer(self.target.item, direction).ref
        page = {"type": "array", "items": items}
        return {
            "oneOf": [
                {**page, "description": "Without `type`: the spec's array (one page)."},
                {
                    "type": "object",
                    "description": "With `type`: the modern object; `hits` is the same page.",
                    "properties": {
                        "total": {"type": "integer", "minimum": 1, "description": "All matches, every page."},
                        "hits": page,
                    },
                    "required": ["total", "hits"],
                },
            ]
        }
