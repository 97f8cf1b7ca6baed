"""Make presentation for templates: `{% load make_tags %}`."""

from django import template

from apps.makes import links

register = template.Library()


@register.filter
def make_thumbnail(make):
    """The make's thumbnail from selectors.make_queryset's annotation (never a query here)."""
    return links.make_thumbnail_url(make)
