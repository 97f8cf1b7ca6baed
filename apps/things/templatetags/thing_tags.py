"""Thing presentation for templates: `{% load thing_tags %}`."""

from django import template

from apps.things import links

register = template.Library()


@register.filter
def thing_thumbnail(thing):
    """The Thing's thumbnail URL from the annotations of its selector (never a query here)."""
    return links.thing_thumbnail_url(thing)
