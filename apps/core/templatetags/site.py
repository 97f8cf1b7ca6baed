"""Template filters every site page may use: `{% load site %}`."""

from django import template
from django.utils.safestring import mark_safe

from apps.core.domain import licenses, markup

register = template.Library()


@register.filter
def markdown(text):
    """A long Markdown text (a description, instructions) as sanitised HTML (apps/core/domain/markup.py)."""
    return mark_safe(markup.document_render(text or ""))  # noqa: S308 (sanitised by nh3)


@register.filter
def license_name(code):
    return licenses.license_name(code or "")


@register.filter
def license_url(code):
    return licenses.license_url(code or "")


@register.simple_tag(takes_context=True)
def query_with(context, **changes):
    """The current query string with some parameters changed (None or "" drops one), for pager links."""
    query = context["request"].GET.copy()
    for name, value in changes.items():
        query.pop(name, None)
        if value not in (None, ""):
            query[name] = value
    encoded = query.urlencode()
    return "?" + encoded if encoded else "?"
