"""Files and images for templates: `{% load upload_tags %}`."""

from django import template

from apps.uploads import links

register = template.Library()


@register.filter
def filesize(size):
    return links.formatted_size(int(size or 0))


@register.filter
def image_url(image, variant="display:medium"):
    """An image's rendered `type:size` variant (the original until it is rendered)."""
    kind, _, size = variant.partition(":")
    sizes = links.image_sizes(image.sizes, type=kind, size=size or None)
    return sizes[0]["url"] if sizes else links.store_url(image.key)
