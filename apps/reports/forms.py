"""Forms of the report and appeal pages: shape only; the services decide."""
from django import forms

from apps.reports import rules
from apps.reports.models import Report


class ReportForm(forms.Form):
    reason = forms.ChoiceField(choices=Report.Reason.choices, widget=forms.RadioSelect, label="What is wrong?")
    details = forms.CharField(
        required=False,
        max_length=rules.DETAILS_MAX_LENGTH,
        label="Details for the moderators (optional)",
        help_text=f"At most {rules.DETAILS_MAX_LENGTH} characters. Links to the original design help with "
        "copyright reports.",
        widget=forms.Textarea(attrs={"rows": 4, "maxlength": rules.DETAILS_MAX_LENGTH, "data-counter": "1"}),
    )


class AppealForm(forms.Form):
    text = forms.CharField(
        max_length=rules.APPEAL_MAX_LENGTH,
        label="Why should it be shown again?",
        help_text=f"You can appeal once. At most {rules.APPEAL_MAX_LENGTH} characters.",
        widget=forms.Textarea(attrs={"rows": 5, "maxlength": rules.APPEAL_MAX_LENGTH, "data-counter": "1"}),
    )


class ModeratorNoteForm(forms.Form):
    """The admin's intermediate page of the queue's actions: the reason or message they need."""

    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000)

    def clean_note(self):
        note = self.cleaned_data["note"].strip()
        if not note:
            raise forms.ValidationError("This is needed.")
        return note
