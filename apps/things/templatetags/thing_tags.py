"""Thing presentation for templates: `{% load thing_tags %}`."""

from django import template
from django.utils.safestring import mark_safe

from apps.things import links
from apps.things.models import documents_html

register = template.Library()


@register.filter
def thing_thumbnail(thing):
    """The Thing's thumbnail URL from the annotations of its selector (never a query here)."""
    return links.thing_thumbnail_url(thing)


@register.filter
def thing_description_html(thing):
    """The description as sanitised HTML, stored when it was saved (apps.things.models.documents_html)."""
    return mark_safe(documents_html(thing)[0])  # noqa: S308 (sanitised by nh3 when rendered)


@register.filter
def thing_instructions_html(thing):
    return mark_safe(documents_html(thing)[1])  # noqa: S308 (sanitised by nh3 when rendered)


PRINT_SETTING_LABELS = {
    "printer": "Printer", "material": "Material", "layer_height_mm": "Layer height", "nozzle_mm": "Nozzle",
    "infill_percent": "Infill", "supports": "Supports", "notes": "Notes",
}


@register.filter
def print_settings_rows(stored) -> list[dict]:
    """The Thing page's print settings: [{key, label, text, url}] of the keys set, in a fixed order;
    `url` searches Things of the same material (/find?material=…)."""
    from urllib.parse import urlencode

    if not isinstance(stored, dict):
        return []
    rows = []
    for key, label in PRINT_SETTING_LABELS.items():
        value = stored.get(key)
        if value is None:
            continue
        if key == "supports":
            text = "Yes" if value else "No"
        elif key in ("layer_height_mm", "nozzle_mm"):
            text = f"{value:g} mm"
        elif key == "infill_percent":
            text = f"{value:g}%"
        else:
            text = str(value)
        url = "/find?" + urlencode({"material": value}) if key == "material" else ""
        rows.append({"key": key, "label": label, "text": text, "url": url})
    return rows
