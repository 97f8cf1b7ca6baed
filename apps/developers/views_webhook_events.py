"""The app page's webhook event selection (templates/developers/_webhook_events.html): which events of
apps/webhooks/catalog.py the app receives. GET shows the selection on its own page; POST stores it."""
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View

from apps.core.domain.exceptions import ValidationFailed
from apps.developers.forms import WebhookEventsForm
from apps.developers.views import OwnedApplicationMixin
from apps.webhooks import services as webhook_services


class ApplicationWebhookEventsView(OwnedApplicationMixin, View):
    template_name = "developers/webhook_events.html"

    def _render(self, request, application, chosen=None, errors=(), status=200):
        context = {"application": application, "webhook_events_chosen": chosen, "webhook_events_errors": errors}
        return render(request, self.template_name, context, status=status)

    def get(self, request, pk):
        return self._render(request, self.get_application())

    def post(self, request, pk):
        application = self.get_application()
        form = WebhookEventsForm(request.POST)
        if form.is_valid():
            try:
                webhook_services.webhook_events_select(application=application, events=form.cleaned_data["events"])
            except ValidationFailed as exc:  # pragma: no cover - the form offers catalog names only
                form.add_error("events", exc.message)
            else:
                messages.success(request, "Your webhook events are saved.")
                return redirect(reverse("developers:app-detail", args=[application.pk]) + "#webhook-events")
        errors = [message for messages_ in form.errors.values() for message in messages_]
        return self._render(request, application, chosen=set(request.POST.getlist("events")), errors=errors,
                            status=400)
