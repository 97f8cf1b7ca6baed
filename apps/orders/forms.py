"""Site forms of the checkout dialog and the buyer's orders page: parsing only; rules.py decides."""
import json
from decimal import Decimal, InvalidOperation

from django import forms

from apps.core.pipeline.api import MAX_ID
from apps.orders import rules


class CheckoutParamsForm(forms.Form):
    """The dialog's query string: what the app asks the buyer to pay (spec §4.11 `payment` dialog)."""

    thing_id = forms.IntegerField(min_value=1, max_value=MAX_ID)
    client_id = forms.CharField(max_length=100)
    amount = forms.DecimalField(max_digits=12, decimal_places=2)
    charges = forms.CharField(required=False, help_text='JSON: [{"name": "Item", "amount": "15.00"}, …]')

    def clean_charges(self):
        raw = self.cleaned_data.get("charges")
        if not raw:
            return None
        try:
            items = json.loads(raw)
        except (ValueError, RecursionError):
            raise forms.ValidationError("Charges must be a JSON array of {name, amount}.") from None
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise forms.ValidationError("Charges must be a JSON array of {name, amount}.")
        charges = []
        for item in items:
            value = item.get("amount")
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise forms.ValidationError("Each charge amount is a number.")
            try:
                amount = Decimal(str(value))
            except InvalidOperation:
                raise forms.ValidationError("Each charge amount is a number.") from None
            if not amount.is_finite():
                raise forms.ValidationError("Each charge amount is a number.")
            charges.append({"name": item.get("name"), "amount": amount})
        return charges

    def clean(self):
        super().clean()
        data = self.cleaned_data  # Form.clean returns it; typed Optional for subclasses
        amount = data.get("amount")
        if amount is None or "charges" not in data:
            return data
        if data["charges"] is None:
            data["charges"] = [{"name": "Item", "amount": amount}]
        for field, messages in rules.order_amount_blockers(amount=amount, charges=data["charges"]).items():
            for message in messages:
                self.add_error(field, message)
        return data


class AddressForm(forms.Form):
    """The `address` dialog: a shipping address the order keeps as validated text."""

    name = forms.CharField(max_length=100)
    street = forms.CharField(max_length=200)
    city = forms.CharField(max_length=100)
    postal_code = forms.CharField(max_length=10, label="Postal code")
    country = forms.CharField(max_length=2, min_length=2, help_text="Two-letter code, e.g. US, DE, FR.")

    def clean_postal_code(self):
        value = self.cleaned_data["postal_code"].strip()
        if not rules.POSTAL_CODE.fullmatch(value):
            raise forms.ValidationError("Enter a postal code of 2 to 10 letters, digits, spaces or dashes.")
        return value

    def clean_country(self):
        value = self.cleaned_data["country"].strip().upper()
        if not rules.COUNTRY_CODE.fullmatch(value):
            raise forms.ValidationError("Enter the two-letter country code, e.g. US.")
        return value


class RefundRequestForm(forms.Form):
    reason = forms.CharField(
        max_length=rules.REFUND_REASON_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 2})
    )
