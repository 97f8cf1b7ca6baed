"""Template helpers of the OAuth pages and the developer portal: an app's logo, its scopes in words."""
from django import template

from apps.oauth import links, rules

register = template.Library()


@register.filter
def app_logo(application) -> str:
    return links.application_logo_url(application)


@register.filter
def scope_words(scope: str) -> list[str]:
    return rules.scope_descriptions(scope or "")


@register.inclusion_tag("oauth/_app_logo.html")
def app_logo_img(application, size: int = 48):
    """The app's logo, or a square with its initial when it has none."""
    return {"url": links.application_logo_url(application), "application": application, "size": size}
