"""The site's Thing form (/new and /thing:<id>/edit). It checks shape only; services.thing_create and
thing_update decide, with the same rules as POST /things/ and PATCH /things/{id}/."""

from django import forms

from apps.core.licenses import THING_LICENSE_CHOICES, THING_LICENSES
from apps.things import rules

TAGS_TEXT_MAX_LENGTH = 6000
FIELDS = ("name", "description", "instructions", "category", "license", "tags", "is_wip")


def tags_text_parse(raw) -> list[str]:
    """A comma-separated tag list; blanks dropped (normalisation is the service's: spec §2 Tag)."""
    return [item.strip() for item in (raw or "").split(",") if item.strip()]


class ThingForm(forms.Form):
    name = forms.CharField(max_length=rules.THING_NAME_MAX_LENGTH)
    description = forms.CharField(
        required=False,
        max_length=rules.THING_TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="Markdown: **bold**, *italic*, lists, links, tables. Needed to publish.",
    )
    instructions = forms.CharField(
        required=False,
        label="Printing instructions",
        max_length=rules.THING_TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="Printer settings, supports, assembly. Markdown too.",
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

    def __init__(self, *args, categories: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        category_field = self.fields["category"]
        assert isinstance(category_field, forms.ChoiceField)
        category_field.choices = [("", "No category"), *categories]

    def clean_tags(self):
        return tags_text_parse(self.cleaned_data.get("tags"))

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
    }


def new_thing_initial(user) -> dict:
    return {"license": user.default_license if user.default_license in THING_LICENSES else "cc-sa"}
