"""Developer portal pages (server-rendered, session login, CSRF): parse → selector → one service → render."""
import json
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404, HttpRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View

from apps.core.domain.exceptions import NotFound, RuleViolation, ValidationFailed
from apps.core.security.sealing import seal, unseal
from apps.core.site.pages import no_store
from apps.developers import rules, selectors, services
from apps.developers.forms import (
    ApplicationEditForm,
    ApplicationForm,
    ApplicationLogoForm,
    ApplicationWireVersionForm,
    DeliveryFilterForm,
)
from apps.webhooks import selectors as webhook_selectors
from apps.webhooks import services as webhook_services

# Between the POST that made a client secret or read-only token and the one page that shows it, the
# session holds it sealed (docs/security.md, issue 22 finding 8; apps.core.security.sealing: encrypted under a key
# derived from SECRET_KEY), readable for ONE_TIME_SECONDS, then removed by the page that shows it. The
# session table (kept two weeks) never holds a usable credential.
ONE_TIME_SECRET_SESSION_KEY = "developers:one_time_client_secret"
ONE_TIME_TOKEN_SESSION_KEY = "developers:one_time_readonly_token"
ONE_TIME_SECONDS = 600
# Deliveries whose row may still change: the page polls the log while one is shown.
LIVE_DELIVERY_STATES = ("pending", "sending")


def _stash_secret(request, application, secret: str, *, key: str = ONE_TIME_SECRET_SESSION_KEY) -> None:
    request.session[key] = {"application": application.pk, "sealed": seal(secret, purpose=key)}


def _pop_secret(request, application, *, key: str = ONE_TIME_SECRET_SESSION_KEY) -> str | None:
    stash = request.session.get(key)
    if not stash or stash.get("application") != application.pk:
        return None
    del request.session[key]
    # None when too old, sealed under another SECRET_KEY, or a session from before sealing.
    return unseal(str(stash.get("sealed", "")), purpose=key, max_age_seconds=ONE_TIME_SECONDS)


def _delivery_log_context(request, application) -> dict:
    """The delivery log's filters and rows (the app page and its live fragment show the same)."""
    filter_form = DeliveryFilterForm(request.GET)
    filters = filter_form.filters()
    deliveries = webhook_selectors.delivery_list_recent(application=application, **filters)
    for delivery in deliveries:
        # The body every attempt sent, indented for reading (the wire has it compact, keys sorted).
        body = json.dumps(delivery.payload, indent=2, sort_keys=True, ensure_ascii=False)
        delivery.request_body = body  # type: ignore[attr-defined]  # for the template
    return {
        "filter_form": filter_form,
        "filters_active": bool(filters),
        "webhook_deliveries": deliveries,
        "log_live": any(delivery.status in LIVE_DELIVERY_STATES for delivery in deliveries),
        "webhook_events": webhook_selectors.delivery_event_names(application=application),
        "log_query": urlencode(filters),
    }


def _detail_url(application) -> str:
    return reverse("developers:app-detail", args=[application.pk])


class OwnedApplicationMixin(LoginRequiredMixin):
    """Loads the URL's app for its owner; anyone else gets 404, never a hint that it exists."""

    # Set by the View this is mixed into.
    request: HttpRequest
    kwargs: dict[str, Any]

    def get_application(self):
        try:
            return selectors.application_get_for_owner(owner=self.request.user, pk=self.kwargs["pk"])
        except NotFound:
            raise Http404 from None


class ApplicationListView(LoginRequiredMixin, View):
    def get(self, request):
        applications = selectors.application_list_for_owner(owner=request.user)
        return render(
            request,
            "developers/app_list.html",
            {"applications": applications, "user_limit": settings.UNAPPROVED_APP_USER_LIMIT},
        )


class ApplicationCreateView(LoginRequiredMixin, View):
    template_name = "developers/app_new.html"

    def _render(self, request, form, status=200):
        context = {"form": form, "user_limit": settings.UNAPPROVED_APP_USER_LIMIT}
        return render(request, self.template_name, context, status=status)

    def get(self, request):
        return self._render(request, ApplicationForm())

    def post(self, request):
        form = ApplicationForm(request.POST)
        if form.is_valid():
            try:
                application, secret = services.application_register(owner=request.user, **form.cleaned_data)
            except ValidationFailed as exc:
                form.add_service_errors(exc.errors)
            else:
                _stash_secret(request, application, secret)
                messages.success(request, "Your application is registered.")
                return redirect(_detail_url(application))
        return self._render(request, form, status=400)


def _render_detail(request, application, form, *, status=200, logo_form=None, wire_form=None):
    """The app page: credentials, review, logo, webhook and its delivery log, settings."""
    user_count = selectors.application_user_count(application=application)
    log = _delivery_log_context(request, application)
    if log["filter_form"].errors and status == 200:
        status = 400
    context = {
        **log,
        "application": application,
        "form": form,
        "logo_form": logo_form or ApplicationLogoForm(),
        "wire_form": wire_form or ApplicationWireVersionForm(initial={"wire_version": application.wire_version}),
        "client_secret": _pop_secret(request, application),
        "readonly_token_value": _pop_secret(request, application, key=ONE_TIME_TOKEN_SESSION_KEY),
        "user_count": user_count,
        "user_limit": rules.application_user_limit(application),
        "in_review": rules.application_is_in_review(application),
        "submit_blockers": rules.application_submit_blockers(application),
        "readonly_token": selectors.application_readonly_token_get(application=application),
        "readonly_scope": rules.READONLY_TOKEN_SCOPE,
    }
    # The page shows the webhook signing secret, and once a new client secret or read-only token (#9).
    return no_store(render(request, "developers/app_detail.html", context, status=status))


class ApplicationDetailView(OwnedApplicationMixin, View):
    def get(self, request, pk):
        application = self.get_application()
        form = ApplicationEditForm(initial=ApplicationEditForm.initial_for(application))
        return _render_detail(request, application, form)

    def post(self, request, pk):
        application = self.get_application()
        form = ApplicationEditForm(request.POST)
        if form.is_valid():
            try:
                services.application_update(application=application, **form.cleaned_data)
            except ValidationFailed as exc:
                form.add_service_errors(exc.errors)
            else:
                messages.success(request, "Your changes are saved.")
                return redirect(_detail_url(application))
        return _render_detail(request, application, form, status=400)


class ApplicationSecretRotateView(OwnedApplicationMixin, View):
    def post(self, request, pk):
        application = self.get_application()
        secret = services.application_rotate_secret(application=application)
        _stash_secret(request, application, secret)
        messages.success(request, "A new client secret was generated; the old one no longer works.")
        return redirect(_detail_url(application))


class ApplicationWebhookSecretRotateView(OwnedApplicationMixin, View):
    def post(self, request, pk):
        application = self.get_application()
        services.application_rotate_webhook_secret(application=application)
        messages.success(request, "A new webhook signing secret was generated.")
        return redirect(_detail_url(application) + "#webhook")


class ApplicationWebhookPingView(OwnedApplicationMixin, View):
    def post(self, request, pk):
        application = self.get_application()
        try:
            webhook_services.webhook_ping(application=application)
        except RuleViolation as exc:
            for reason in exc.errors or [exc.message]:
                messages.error(request, reason)
        else:
            messages.success(request, "A test event (ping) is on its way; its delivery is listed below.")
        return redirect(_detail_url(application) + "#webhook-deliveries")


class ApplicationWebhookRedeliverView(OwnedApplicationMixin, View):
    def post(self, request, pk, delivery_pk):
        application = self.get_application()
        try:
            delivery = webhook_selectors.delivery_get_for_application(application=application, pk=delivery_pk)
        except NotFound:
            raise Http404 from None
        try:
            webhook_services.delivery_redeliver(delivery=delivery)
        except RuleViolation as exc:
            for reason in exc.errors or [exc.message]:
                messages.error(request, reason)
        else:
            messages.success(request, f"The {delivery.event} event is being sent again.")
        return redirect(_detail_url(application) + "#webhook-deliveries")


class ApplicationReadonlyTokenView(OwnedApplicationMixin, View):
    def post(self, request, pk):
        application = self.get_application()
        token = services.application_issue_readonly_token(application=application)
        _stash_secret(request, application, token.token, key=ONE_TIME_TOKEN_SESSION_KEY)
        messages.success(request, "A new read-only token was issued; any previous one no longer works.")
        return redirect(_detail_url(application) + "#readonly-token")


class ApplicationLogoView(OwnedApplicationMixin, View):
    """POST a new logo (multipart), or `remove=1` to take it away."""

    def post(self, request, pk):
        application = self.get_application()
        if request.POST.get("remove"):
            services.application_logo_remove(application=application)
            messages.success(request, "The logo was removed.")
            return redirect(_detail_url(application) + "#logo")
        form = ApplicationLogoForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                services.application_logo_replace(application=application, upload=form.cleaned_data["logo"])
            except ValidationFailed as exc:
                for message in (exc.errors or {}).get("logo", [exc.message]):
                    form.add_error("logo", message)
            else:
                messages.success(request, "The logo is saved; users see it on the consent page.")
                return redirect(_detail_url(application) + "#logo")
        settings_form = ApplicationEditForm(initial=ApplicationEditForm.initial_for(application))
        return _render_detail(request, application, settings_form, status=400, logo_form=form)


class ApplicationWireVersionView(OwnedApplicationMixin, View):
    """POST the app's wire version (docs/decisions.md: Wire versions)."""

    def post(self, request, pk):
        application = self.get_application()
        form = ApplicationWireVersionForm(request.POST)
        if form.is_valid():
            services.application_wire_version_set(application=application, version=form.cleaned_data["wire_version"])
            messages.success(request, f"Your app now gets the {application.wire_version} wire.")
            return redirect(_detail_url(application) + "#wire-version")
        settings_form = ApplicationEditForm(initial=ApplicationEditForm.initial_for(application))
        return _render_detail(request, application, settings_form, status=400, wire_form=form)


class ApplicationDeliveryLogView(OwnedApplicationMixin, View):
    """GET the delivery log as an HTML fragment (the app page polls it while deliveries are pending)."""

    def get(self, request, pk):
        application = self.get_application()
        context = {**_delivery_log_context(request, application), "application": application}
        status = 400 if context["filter_form"].errors else 200
        response = render(request, "developers/_delivery_log.html", context, status=status)
        response["Cache-Control"] = "no-store"
        return response


class ApplicationSubmitView(OwnedApplicationMixin, View):
    def post(self, request, pk):
        application = self.get_application()
        try:
            services.application_submit_for_review(application=application, submitted_by=request.user)
        except RuleViolation as exc:
            for reason in exc.errors or [exc.message]:
                messages.error(request, reason)
        else:
            messages.success(request, "Your application is submitted for review.")
        return redirect(_detail_url(application))


class ApplicationDeleteView(OwnedApplicationMixin, View):
    template_name = "developers/app_delete.html"

    def get(self, request, pk):
        return render(request, self.template_name, {"application": self.get_application()})

    def post(self, request, pk):
        application = self.get_application()
        if request.POST.get("confirm") != "yes":
            context = {"application": application, "unconfirmed": True}
            return render(request, self.template_name, context, status=400)
        name = application.name
        services.application_delete(application=application)
        messages.success(request, f"The application {name} was deleted.")
        return redirect(reverse("developers:app-list"))
