"""Serializer fields of the API conventions, for input serializers of any app."""
from rest_framework import serializers


class StrictCharField(serializers.CharField):
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
