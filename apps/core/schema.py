"""drf-spectacular's AutoSchema, told what LenientJSONParser's `*/*` stands for."""
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter

from apps.core.parsers import LenientJSONParser


class ApiAutoSchema(AutoSchema):
    def map_parsers(self):
        # The parser accepts any Content-Type only for compat (DECISIONS.md: Requests); the contract is
        # JSON (spec §1), so that is what the document promises and what generated clients send.
        return [
            "application/json" if media_type == LenientJSONParser.media_type else media_type
            for media_type in super().map_parsers()
        ]


# Path parameters shared by the views of several apps (one description each in the schema).
THING_PARAM = OpenApiParameter("thing_id", int, OpenApiParameter.PATH, description="A Thing id.")
USERNAME_PARAM = OpenApiParameter(
    "username", str, OpenApiParameter.PATH, description="A user name, or `me` for the token's user."
)
