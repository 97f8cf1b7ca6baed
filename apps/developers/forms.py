"""Portal forms: they check input and report the rules' reasons per field; services do the writing."""
from django import forms
from oauth2_provider.models import get_application_model

from apps.core.pipeline import versions
from apps.developers import rules
from apps.webhooks import catalog as webhook_catalog

Application = get_application_model()

CLIENT_TYPE_CHOICES = [
    (Application.CLIENT_CONFIDENTIAL, "Confidential (a server keeps the client secret)"),
    (Application.CLIENT_PUBLIC, "Public (Mobile or Desktop app using PKCE, no secret)"),
]


class ApplicationForm(forms.Form):
    """spec §5 registration fields."""

    name = forms.CharField(max_length=255)
    description = forms.CharField(
        max_length=1000, widget=forms.Textarea(attrs={"rows": 3}), help_text="A short description."
    )
    app_type = forms.ChoiceField(label="Application type", choices=Application.AppType.choices)
    info_url = forms.URLField(label="Information URL", max_length=500, assume_scheme="https")
    application_url = forms.URLField(
        label="Application URL",
        max_length=500,
        required=False,
        assume_scheme="https",
        help_text="Required for Web and Thing apps.",
    )
    callback_url = forms.CharField(
        label="Callback URLs",
        max_length=rules.MAX_CALLBACK_URLS * (rules.MAX_CALLBACK_URL_LENGTH + 2),
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false", "autocapitalize": "off"}),
        help_text=(
            f"One per line, up to {rules.MAX_CALLBACK_URLS} (http or https). After authorizing, users are sent "
            "back to the one your authorization request names; the first is the default."
        ),
    )
    client_type = forms.ChoiceField(
        choices=CLIENT_TYPE_CHOICES, initial=Application.CLIENT_CONFIDENTIAL, widget=forms.RadioSelect
    )

    def clean_callback_url(self):
        # Stored as DOT stores redirect_uris: space-separated, in the order given.
        return " ".join(rules.callback_urls_split(self.cleaned_data.get("callback_url", "")))

    def clean(self):
        super().clean()
        data = self.cleaned_data  # Form.clean returns it; typed Optional for subclasses
        if self.errors:
            return data
        blockers = rules.application_registration_blockers(
            app_type=data["app_type"],
            info_url=data["info_url"],
            application_url=data.get("application_url", ""),
            callback_url=data["callback_url"],
            client_type=data["client_type"],
        )
        for field, messages in blockers.items():
            for message in messages:
                self.add_error(field if field in self.fields else None, message)
        return data

    def add_service_errors(self, errors: dict) -> None:
        """Show a service's ValidationFailed errors next to the fields they concern."""
        for field, messages in (errors or {}).items():
            for message in messages:
                self.add_error(field if field in self.fields else None, message)


class ApplicationEditForm(ApplicationForm):
    webhook_url = forms.URLField(
        label="Webhook URL",
        max_length=500,
        required=False,
        assume_scheme="https",
        help_text="Order events are POSTed here (http or https, public address).",
    )

    @classmethod
    def initial_for(cls, application) -> dict:
        return {
            "name": application.name,
            "description": application.description,
            "app_type": application.app_type,
            "info_url": application.info_url,
            "application_url": application.application_url,
            "callback_url": "\n".join(rules.callback_urls_split(application.redirect_uris)),
            "client_type": application.client_type,
            "webhook_url": application.webhook_url,
        }

    def clean_webhook_url(self):
        url = self.cleaned_data.get("webhook_url", "")
        for message in rules.webhook_url_blockers(url):
            self.add_error("webhook_url", message)
        return url


class ApplicationWireVersionForm(forms.Form):
    """The app's wire version (docs/decisions.md: Wire versions; docs/compatibility.md explains the choice)."""

    wire_version = forms.ChoiceField(
        label="Wire version",
        choices=versions.CHOICES,
        widget=forms.RadioSelect,
        help_text="The shapes every answer to this app takes, unless a request sends a Thingyard-Version "
        "header. Takes effect on the next request.",
    )


class ApplicationLogoForm(forms.Form):
    """The app's logo: a small square-ish image (rules.LOGO_*); the service checks the bytes."""

    logo = forms.FileField(
        label="Logo",
        help_text="PNG, JPEG or WebP, at most 512 KB and 1024 × 1024 pixels; shown on the consent page.",
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )


class DeliveryFilterForm(forms.Form):
    """The delivery log's filters (GET): by status and by event."""

    status = forms.ChoiceField(required=False, choices=[("", "Any status"), *rules.DELIVERY_STATUS_FILTERS])
    event = forms.CharField(required=False, max_length=40)

    def filters(self) -> dict:
        """The valid filters, {} for none (an invalid form filters nothing)."""
        if not self.is_valid():
            return {}
        return {key: value for key, value in self.cleaned_data.items() if value}


class WebhookEventsForm(forms.Form):
    """The webhook events an app receives (apps/webhooks/catalog.py): templates/developers/_webhook_events.html."""

    events = forms.MultipleChoiceField(
        choices=[(spec.name, spec.name) for spec in webhook_catalog.EVENTS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
