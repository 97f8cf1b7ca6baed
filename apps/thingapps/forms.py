"""The thing_save dialog's form (spec §4.11): parsing only; what it produces is the body of the REST
create (POST /things/) or update (PATCH /things/{id}/) call, nothing is saved here."""

from typing import cast

from django import forms

from apps.core.pipeline.api import MAX_ID
from apps.core.domain.licenses import THING_LICENSE_CHOICES, THING_LICENSES
from apps.thingapps import rules
from apps.things import rules as thing_rules
from apps.things.models import Category
from apps.things.selectors import category_get_by_name, category_tree_order
from apps.core.site.pages import LimitedCharField

TAGS_TEXT_MAX_LENGTH = 6000


def category_choices() -> list[tuple[str, str]]:
    categories = Category.objects.select_related("parent").order_by(*category_tree_order())
    choices = [("", "No category")]
    for category in categories:
        label = f"{category.parent.name} › {category.name}" if category.parent is not None else category.name
        choices.append((category.name, label))
    return choices


class ThingSaveForm(forms.Form):
    id = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID, widget=forms.HiddenInput)
    name = forms.CharField(max_length=thing_rules.THING_NAME_MAX_LENGTH)
    description = LimitedCharField(
        required=False, max_length=thing_rules.THING_TEXT_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 4})
    )
    category = forms.ChoiceField(required=False)
    tags = forms.CharField(
        required=False, max_length=TAGS_TEXT_MAX_LENGTH, help_text="Separate tags with commas."
    )
    license = forms.ChoiceField(choices=THING_LICENSE_CHOICES)
    is_wip = forms.BooleanField(required=False, label="Work in progress")
    is_published = forms.BooleanField(required=False, label="Publish")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["category"]).choices = category_choices()

    def clean_tags(self):
        names, errors = thing_rules.thing_tags_normalize(rules.tags_text_parse(self.cleaned_data.get("tags")))
        if errors:
            raise forms.ValidationError(errors)
        return names

    def thing_body(self) -> dict:
        """What the app sends as the body of POST /things/ or PATCH /things/{id}/."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "description": data["description"],
            "license": data["license"],
            "category": data["category"],
            "tags": data["tags"],
            "is_wip": data["is_wip"],
        }


def thing_save_initial(*, thing, params, user) -> dict:
    """The form's starting values: the Thing being edited (if any), then what the app passed (spec
    §4.11 thing_save parameters), ignoring values the form could not show."""
    initial: dict = {"license": user.default_license if user.default_license in THING_LICENSES else "cc-sa"}
    if thing is not None:
        initial.update(
            id=thing.pk,
            name=thing.name,
            description=thing.description,
            category=thing.category.name if thing.category_id else "",
            tags=", ".join(tag.name for tag in thing.tags.all()),
            license=thing.license,
            is_wip=thing.is_wip,
            is_published=thing.is_published,
        )
    for key in ("name", "description"):
        if isinstance(params.get(key), str):
            initial[key] = params[key]
    if "tags" in params:
        initial["tags"] = ", ".join(rules.tags_text_parse(params.get("tags")))
    if params.get("license") in THING_LICENSES:
        initial["license"] = params["license"]
    if params.get("category"):
        category = category_get_by_name(str(params["category"]))
        if category is not None:
            initial["category"] = category.name
    for key in ("is_wip", "is_published"):
        flag = rules.flag_parse(params.get(key))
        if flag is not None:
            initial[key] = flag
    return initial
