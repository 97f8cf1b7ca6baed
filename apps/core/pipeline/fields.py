"""Serializer fields of the API conventions, for input serializers of any app."""
from rest_framework import serializers


class CharField(serializers.CharField):
    """DRF's CharField with `max_length` counted on the text as sent. DRF trims the surrounding whitespace
    first and counts what is left, so a value longer than the OpenAPI document's `maxLength` passed when
    its excess was spaces; the document describes the request, so the request is what is counted."""

    def run_validation(self, data=serializers.empty):
        if self.max_length is not None and isinstance(data, str) and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().run_validation(data)


class StrictCharField(CharField):
    """A string and only a string: DRF's CharField would quietly turn 42 into "42" (the spec's inputs are
    strings, and the OpenAPI document says so; a number is a 400, never converted)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """JSON true/false (and the form spellings DRF knows); a number is not a boolean here."""

    def to_internal_value(self, data):
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            self.fail("invalid", input=data)
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """An integer (or its decimal string, for form bodies); never a boolean or a fraction."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or (isinstance(data, float) and not data.is_integer()):
            self.fail("invalid")
        return super().to_internal_value(data)


class LicenseField(serializers.ChoiceField):
    """A license code (spec §2), or the display name the API shows for it (docs/decisions.md: round-trip
    PATCH: a client sends back the `license` it read, `Creative Commons - Attribution`). Case and
    surrounding spaces of a display name do not matter; the validated value is always the code."""

    def __init__(self, *, licenses: dict[str, str], **kwargs):
        self._codes_by_name = {name.casefold(): code for code, name in licenses.items()}
        super().__init__(choices=list(licenses.items()), **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str) and data not in self.choices:
            data = self._codes_by_name.get(data.strip().casefold(), data)
        return super().to_internal_value(data)
