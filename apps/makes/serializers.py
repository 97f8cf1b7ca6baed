"""Copy (make) output (docs/decisions.md: Copy) and the inputs of spec §4.4."""
from rest_framework import serializers

from apps.accounts.links import iso8601
from apps.accounts.serializers import UserSummarySerializer
from apps.makes import links, selectors
from apps.makes.models import DESCRIPTION_MAX_LENGTH
from apps.core.pipeline import wire
from apps.core.pipeline.fields import StrictCharField
from apps.core.domain.markup import detail_parts, details_html, document_render
from apps.core.pipeline.api import api_url
from apps.things.serializers import ThingShortSerializer
from apps.uploads.files.serializers import ImageSerializer


def _description_html(make) -> str:
    """The copy's description rendered (apps.core.domain.markup), once per copy: three `thingiverse` fields
    show it (`description_html`, and the section of `details_parts` and `details`)."""
    kept = make.__dict__.get("_description_html")
    if kept is None or kept[0] != make.description:  # kept with the text it renders: a changed one renders anew
        kept = make.__dict__["_description_html"] = (make.description, document_render(make.description))
    return kept[1]


def _thing(make, context) -> dict:
    # The Thing's pictures are joined into the make's row (selectors.make_queryset): no query here.
    return ThingShortSerializer(context=context).to_representation(make.thing)


class MakeSerializer(serializers.Serializer):
    """docs/decisions.md Copy: `id, url, public_url, added, like_count, description, is_liked, creator,
    thing, thumbnail, images_url`, plus `modified` and `comment_count`. `url` is the API URL,
    `public_url` the site page. Reads selectors.make_queryset's annotations."""

    id = serializers.IntegerField(read_only=True)
    url = serializers.URLField(read_only=True, help_text="API URL of the copy.")
    public_url = serializers.URLField(read_only=True, help_text="The copy's page on the site.")
    added = serializers.CharField(read_only=True, help_text="ISO 8601 with offset")
    modified = serializers.CharField(read_only=True, help_text="ISO 8601 with offset")
    like_count = serializers.IntegerField(read_only=True)
    comment_count = serializers.IntegerField(read_only=True)
    description = serializers.CharField(read_only=True)
    is_liked = serializers.BooleanField(read_only=True)
    creator = UserSummarySerializer(read_only=True)
    thing = ThingShortSerializer(read_only=True)
    thumbnail = serializers.URLField(
        read_only=True, help_text="The featured image's thumbnail, or a placeholder."
    )
    images_url = serializers.URLField(read_only=True)

    def to_representation(self, make):
        # Built directly, as ThingShortSerializer does: lists serialise up to 100 per request.
        return wire.apply("Make", {
            "id": make.pk,
            "url": links.make_api_url(make.pk),
            "public_url": links.make_public_url(make.pk),
            "added": iso8601(make.added),
            "modified": iso8601(make.modified),
            "like_count": make.like_count,
            "comment_count": make.comment_count,
            "description": make.description,
            "is_liked": bool(getattr(make, "is_liked", False)),
            "creator": UserSummarySerializer(context=self.context).to_representation(make.creator),
            "thing": _thing(make, self.context),
            "thumbnail": links.make_thumbnail_url(make),
            "images_url": links.make_api_url(make.pk, "images"),
        }, make, self)

    # --- what wire versions other than `spec` compute (apps.core.pipeline.wire: Provide) -------------------------

    def wire_description_html(self, make) -> str:
        return _description_html(make)

    def wire_details_parts(self, make) -> list[dict]:
        # The live copy's page sections: its description (a Thing's are its summary and instructions).
        return detail_parts(("summary", "Description", _description_html(make)))

    def wire_details(self, make) -> str:
        return details_html(self.wire_details_parts(make))

    # Its Thing's category, read in the copy's own statement; "" when the Thing has none (the live document
    # types both as strings).
    def wire_category_name(self, make) -> str:
        return make.thing.category.name if make.thing.category_id else ""

    def wire_category_url(self, make) -> str:
        return api_url(f"categories/{make.thing.category.slug}") if make.thing.category_id else ""

    def wire_root_comment_count(self, make) -> int:
        return selectors.make_root_comment_count(make)

    def wire_name(self, make) -> str:
        return make.thing.name  # the live copy is named after its Thing

    def wire_preview_image(self, make) -> str:
        return links.make_preview_url(make)


class MakeWithImagesSerializer(MakeSerializer):
    """spec §4.2 GET /things/{id}/copies: each copy with its `images` (the Image shape)."""

    images = ImageSerializer(many=True, read_only=True)

    def to_representation(self, make):
        data = super().to_representation(make)
        data["images"] = ImageSerializer(make.image_list, many=True, context=self.context).data
        return data


# --- inputs ------------------------------------------------------------------------------------------


class MakeUpdateInput(serializers.Serializer):
    """spec §4.4 PATCH /copies/{id}/: description (optional; parse with partial=True)."""

    description = StrictCharField(allow_blank=True, max_length=DESCRIPTION_MAX_LENGTH)

