"""The site's Thing form (/new and /thing:<id>/edit). It checks shape only; services.thing_create and
thing_update decide, with the same rules as POST /things/ and PATCH /things/{id}/."""

from django import forms

from apps.core.domain.licenses import THING_LICENSE_CHOICES, THING_LICENSES
from apps.core.site.pages import LimitedCharField
from apps.things import rules
from apps.things.printsettings import FIELDS as PRINT_FIELDS
from apps.things.printsettings import PrintSettingsError, print_settings_merge, print_settings_parse

TAGS_TEXT_MAX_LENGTH = 6000
FIELDS = ("name", "description", "instructions", "category", "license", "tags", "is_wip")
# The print settings' form fields: `print_<key>` (apps/things/printsettings.py), one object for the service.
PRINT_PREFIX = "print_"
SUPPORTS_CHOICES = [("", "Not said"), ("yes", "Yes"), ("no", "No")]


def _number_field(key: str, label: str) -> forms.FloatField:
    low, high, unit = PRINT_FIELDS[key][1:]
    return forms.FloatField(required=False, min_value=low, max_value=high, label=label,
                            widget=forms.NumberInput(attrs={"step": "any"}))


def tags_text_parse(raw) -> list[str]:
    """A comma-separated tag list; blanks dropped (normalisation is the service's: spec §2 Tag)."""
    return [item.strip() for item in (raw or "").split(",") if item.strip()]


class ThingForm(forms.Form):
    name = forms.CharField(max_length=rules.THING_NAME_MAX_LENGTH)
    description = LimitedCharField(
        required=False,
        max_length=rules.THING_TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="Markdown: **bold**, *italic*, lists, links, tables. Needed to publish. "
        f"Up to {rules.THING_TEXT_MAX_LENGTH:,} characters.",
    )
    instructions = LimitedCharField(
        required=False,
        label="Printing instructions",
        max_length=rules.THING_TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=f"Printer settings, supports, assembly. Markdown too. Up to {rules.THING_TEXT_MAX_LENGTH:,} characters.",
    )
    category = forms.ChoiceField(required=False)
    license = forms.ChoiceField(choices=THING_LICENSE_CHOICES)
    tags = forms.CharField(
        required=False,
        max_length=TAGS_TEXT_MAX_LENGTH,
        help_text="Separate tags with commas, e.g. bracket, shelf, wall mount.",
    )
    is_wip = forms.BooleanField(
        required=False,
        label="Work in progress",
        help_text="Say it is not finished yet; it can still be published.",
    )
    print_printer = forms.CharField(required=False, max_length=PRINT_FIELDS["printer"][1], label="Printer",
                                    help_text="The printer you print it on, e.g. Prusa MK4.")
    print_material = forms.CharField(required=False, max_length=PRINT_FIELDS["material"][1], label="Material",
                                     help_text="e.g. PLA, PETG. People can search by it.")
    print_layer_height_mm = _number_field("layer_height_mm", "Layer height (mm)")
    print_nozzle_mm = _number_field("nozzle_mm", "Nozzle (mm)")
    print_infill_percent = _number_field("infill_percent", "Infill (%)")
    print_supports = forms.ChoiceField(required=False, choices=SUPPORTS_CHOICES, label="Supports")
    print_notes = forms.CharField(required=False, max_length=PRINT_FIELDS["notes"][1], label="Print notes",
                                  widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, categories: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        category_field = self.fields["category"]
        assert isinstance(category_field, forms.ChoiceField)
        category_field.choices = [("", "No category"), *categories]

    def clean_tags(self):
        return tags_text_parse(self.cleaned_data.get("tags"))

    def clean(self):
        data = super().clean() or {}
        given = {key: data.get(PRINT_PREFIX + key) for key in PRINT_FIELDS}
        given["supports"] = {"yes": True, "no": False}.get(given["supports"] or "")
        try:  # the API's checks too (the fields' own limits are the same)
            self._print_settings = print_settings_merge(None, print_settings_parse(given))
        except PrintSettingsError as exc:
            self.add_error(None, f"Print settings: {exc}")
        return data

    def print_settings(self) -> dict | None:
        """The print settings the form holds (stored form: the keys with a value), after is_valid()."""
        return getattr(self, "_print_settings", None)

    def changes(self, thing) -> dict:
        """The fields whose value differs from the Thing's (what PATCH would send)."""
        data = self.cleaned_data
        current = thing_initial(thing)
        changed = {}
        for name in FIELDS:
            if name == "tags":
                if [t.lower() for t in data["tags"]] != [t.lower() for t in tags_text_parse(current["tags"])]:
                    changed["tags"] = data["tags"]
            elif data[name] != current[name]:
                changed[name] = data[name]
        settings = self.print_settings()
        if settings != (thing.print_settings or None):
            changed["print_settings"] = None if settings is None else {key: settings.get(key) for key in PRINT_FIELDS}
        return changed


def ids_parse(values, *, limit: int) -> list[int]:
    """Positive integer ids from form values (the `ancestors` of "remix this"); anything else dropped."""
    ids = []
    for value in values:
        if str(value).isdigit() and 0 < int(value) < 2**63 and int(value) not in ids:
            ids.append(int(value))
    return ids[:limit]


def thing_initial(thing) -> dict:
    return {
        "name": thing.name,
        "description": thing.description,
        "instructions": thing.instructions,
        "category": thing.category.name if thing.category_id else "",
        "license": thing.license,
        "tags": ", ".join(tag.name for tag in thing.tags.all()),
        "is_wip": thing.is_wip,
        **print_initial(thing.print_settings),
    }


def print_initial(stored) -> dict:
    stored = stored if isinstance(stored, dict) else {}
    initial = {PRINT_PREFIX + key: stored.get(key) for key in PRINT_FIELDS}
    supports = stored.get("supports")
    initial[PRINT_PREFIX + "supports"] = "" if supports is None else ("yes" if supports else "no")
    return initial


def new_thing_initial(user) -> dict:
    return {"license": user.default_license if user.default_license in THING_LICENSES else "cc-sa"}
