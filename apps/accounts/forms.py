"""Forms of the site pages. They check shape only; the services decide (same rules as the API)."""

from django import forms

from apps.accounts import rules
from apps.accounts.models import User
from apps.core.domain.licenses import USER_LICENSE_CHOICES
from apps.core.site.pages import LimitedCharField


class SignupForm(forms.Form):
    username = forms.CharField(
        max_length=rules.USERNAME_MAX_LENGTH,
        help_text="Letters, digits, underscores and dashes. This is your public name.",
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password1 = forms.CharField(
        label="Password", strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )
    password2 = forms.CharField(
        label="Password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        super().clean()
        data = self.cleaned_data  # Form.clean returns it; typed Optional for subclasses
        if data.get("password1") and data.get("password2") and data["password1"] != data["password2"]:
            self.add_error("password2", "The two passwords do not match.")
        return data


class ProfileForm(forms.Form):
    """The fields PATCH /users/{username}/ changes (spec §2), edited from /account/."""

    first_name = forms.CharField(required=False, max_length=rules.PROFILE_FIELD_MAX_LENGTHS["first_name"])
    last_name = forms.CharField(required=False, max_length=rules.PROFILE_FIELD_MAX_LENGTHS["last_name"])
    location = forms.CharField(required=False, max_length=rules.PROFILE_FIELD_MAX_LENGTHS["location"])
    bio = LimitedCharField(
        required=False,
        max_length=rules.PROFILE_FIELD_MAX_LENGTHS["bio"],
        widget=forms.Textarea(attrs={"rows": 5}),
    )
    default_license = forms.ChoiceField(choices=USER_LICENSE_CHOICES, label="Default license for new Things")


class MessageForm(forms.Form):
    """/account/messages/new: shape only; services.message_send decides (recipient, length, rate)."""

    to = forms.CharField(
        max_length=rules.USERNAME_MAX_LENGTH,
        help_text="The user name of the recipient.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    body = LimitedCharField(
        label="Message",
        max_length=rules.MESSAGE_BODY_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 8}),
    )


class SuspendForm(forms.Form):
    """The admin's intermediate page for the "Suspend users" action."""

    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000)


class PasswordResetRequestForm(forms.Form):
    """/password_reset/: the address a reset link goes to (services.user_password_reset_request)."""

    email = forms.EmailField(
        label="E-mail address",
        max_length=254,
        help_text="The address of your account. If an account uses it, a link to choose a new password "
        "is sent there.",
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )


class EmailChangeForm(forms.Form):
    """/account/email: the new address, confirmed by the current password."""

    email = forms.EmailField(
        label="New e-mail address",
        max_length=254,
        help_text="A confirmation link is sent to the new address; the change takes effect once you open it.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        label="Current password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class CloseAccountForm(forms.Form):
    """/account/close: the current password and the user name typed again."""

    password = forms.CharField(
        label="Current password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    confirm_username = forms.CharField(
        label="Your user name, to confirm",
        max_length=rules.USERNAME_MAX_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )


class NotifyEmailForm(forms.Form):
    """/account/notifications: how notifications come by e-mail (User.notify_email)."""

    notify_email = forms.ChoiceField(choices=User.NotifyEmail.choices, label="E-mail me about notifications")
