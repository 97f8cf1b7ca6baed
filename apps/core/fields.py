"""Serializer fields of the API conventions, for input serializers of any app."""
from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A string and only a string: DRF's CharField would quietly turn 42 into "42" (the spec's inputs are
    strings, and the OpenAPI document says so; a number is a 400, never converted)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)
