"""Developer portal pages (server-rendered, session login, CSRF): parse → selector → one service → render."""
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View

from apps.core.exceptions import NotFound, RuleViolation, ValidationFailed
from apps.developers import rules, selectors, services
from apps.developers.forms import ApplicationEditForm, ApplicationForm
from apps.webhooks import selectors as webhook_selectors
from apps.webhooks import services as webhook_services

# The plain client secret lives here between the POST that made it and the one page that shows it.
ONE_TIME_SECRET_SESSION_KEY = "developers:one_time_client_secret"


def _stash_secret(request, application, secret: str) -> None:
    request.session[ONE_TIME_SECRET_SESSION_KEY] = {"application": application.pk, "secret": secret}


def _pop_secret(request, application) -> str | None:
    stash = request.session.get(ONE_TIME_SECRET_SESSION_KEY)
    if not stash or stash.get("application") != application.pk:
        return None
    del request.session[ONE_TIME_SECRET_SESSION_KEY]
    return stash.get("secret")


def _detail_url(application) -> str:
    return reverse("developers:app-detail", args=[application.pk])


class OwnedApplicationMixin(LoginRequiredMixin):
    """Loads the URL's app for its owner; anyone else gets 404, never a hint that it exists."""

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


class ApplicationDetailView(OwnedApplicationMixin, View):
    template_name = "developers/app_detail.html"

    def _render(self, request, application, form, status=200):
        user_count = selectors.application_user_count(application=application)
        context = {
            "application": application,
            "form": form,
            "client_secret": _pop_secret(request, application),
            "user_count": user_count,
            "user_limit": rules.application_user_limit(application),
            "in_review": rules.application_is_in_review(application),
            "submit_blockers": rules.application_submit_blockers(application),
            "readonly_token": selectors.application_readonly_token_get(application=application),
            "readonly_scope": rules.READONLY_TOKEN_SCOPE,
            "webhook_deliveries": webhook_selectors.delivery_list_recent(application=application),
        }
        return render(request, self.template_name, context, status=status)

    def get(self, request, pk):
        application = self.get_application()
        form = ApplicationEditForm(initial=ApplicationEditForm.initial_for(application))
        return self._render(request, application, form)

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
        return self._render(request, application, form, status=400)


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
        services.application_issue_readonly_token(application=application)
        messages.success(request, "A new read-only token was issued; any previous one no longer works.")
        return redirect(_detail_url(application) + "#readonly-token")


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
