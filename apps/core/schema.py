"""drf-spectacular's AutoSchema, told what LenientJSONParser's `*/*` stands for."""
from drf_spectacular.openapi import AutoSchema

from apps.core.parsers import LenientJSONParser


class ApiAutoSchema(AutoSchema):
    def map_parsers(self):
        # The parser accepts any Content-Type only for compat (DECISIONS.md: Requests); the contract is
        # JSON (spec §1), so that is what the document promises and what generated clients send.
        return [
            "application/json" if media_type == LenientJSONParser.media_type else media_type
            for media_type in super().map_parsers()
        ]
