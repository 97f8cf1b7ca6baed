"""`{% webhook_event_choices application as groups %}`: the catalog's events grouped, each marked chosen or
not for `application` (templates/developers/_webhook_events.html; one query when the selection is not
loaded)."""
from django import template

from apps.webhooks import catalog
from apps.webhooks import selectors as webhook_selectors

register = template.Library()


@register.simple_tag
def webhook_event_choices(application, chosen=None):
    """[(group title, [(EventSpec, is_chosen)])]; `chosen` overrides the stored selection (a form re-shown)."""
    if not isinstance(chosen, set | frozenset | list):  # unset in the page's context: "" or None
        chosen = webhook_selectors.application_events(application=application)
    return [(title, [(spec, spec.name in chosen) for spec in specs]) for title, specs in catalog.event_groups()]
