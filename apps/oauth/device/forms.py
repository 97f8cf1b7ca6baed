from django import forms


class UserCodeForm(forms.Form):
    """The /device page's one field: the code the device shows (XXXX-XXXX; case and dashes do not matter)."""

    user_code = forms.CharField(
        label="Code",
        max_length=32,
        strip=True,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false",
                   "placeholder": "XXXX-XXXX", "autofocus": True}
        ),
    )


class DeviceConsentForm(forms.Form):
    """The consent page's hidden fields (oauth/authorize.html renders them): the code being decided."""

    user_code = forms.CharField(max_length=32, widget=forms.HiddenInput)
    confirm = forms.CharField(widget=forms.HiddenInput, initial="1")
