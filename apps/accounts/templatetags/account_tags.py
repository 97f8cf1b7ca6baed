"""User presentation for templates: `{% load account_tags %}`."""

from django import template

from apps.accounts import links

register = template.Library()


@register.filter
def avatar(user):
    return links.user_thumbnail_url(user)
