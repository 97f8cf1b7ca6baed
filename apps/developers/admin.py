"""Moderators' admin of applications: the review queue, approve and reject (the app lifecycle's writes go
through this app's services; the credentials' admins are apps/oauth/admin.py, which replaces DOT's)."""
from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from oauth2_provider import admin as dot_admin
from oauth2_provider.models import get_application_model

from apps.core.adminkit import dashboard
from apps.core.pipeline import versions
from apps.core.domain.exceptions import ValidationFailed
from apps.developers import services as developer_services

Application = get_application_model()
USER_SEARCH_FIELDS = ("user__username", "user__email")

mask_credential = dot_admin.mask_credential

# DOT's own admin of applications, when apps.oauth.admin has not replaced it yet.
if admin.site.is_registered(Application) and type(admin.site.get_model_admin(Application)).__module__ == dot_admin.__name__:
    admin.site.unregister(Application)


class RejectReasonForm(forms.Form):
    reason = forms.CharField(
        label="Reason (shown to the owner)",
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 5, "cols": 70}),
    )


class InReviewFilter(admin.SimpleListFilter):
    title = "review"
    parameter_name = "review"

    def lookups(self, request, model_admin):
        return [("submitted", "Submitted for review"), ("private", "Private (not submitted)")]

    def queryset(self, request, queryset):
        pending = queryset.filter(approval_state=Application.Approval.PENDING)
        if self.value() == "submitted":
            return pending.filter(review_request__isnull=False)
        if self.value() == "private":
            return pending.filter(review_request__isnull=True)
        return queryset


@admin.register(Application)
class ApplicationAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "user",
        "app_type",
        "approval_state",
        "wire_version",
        "user_count",
        "submitted_for_review_at",
        "created",
    )
    list_filter = ("approval_state", InReviewFilter, "app_type", "wire_version", "client_type", "created")
    search_fields = ("name", "client_id") + USER_SEARCH_FIELDS
    list_select_related = ("user", "review_request")
    ordering = ("-created",)
    actions = ("approve", "reject", "wire_version_spec", "wire_version_thingiverse")
    # The app's page is its owner's developer page: staff are not its owner (404 there), so the admin does
    # not offer "View on site" for applications.
    view_on_site = False
    change_form_template = "admin/oauth/application/change_form.html"
    # client_secret is deliberately absent from every page (DOT stores only a hash; spec §5: never sent
    # to a browser); the webhook secret appears masked.
    fields = (
        "name",
        "description",
        "user",
        "app_type",
        "client_type",
        "authorization_grant_type",
        "client_id",
        "info_url",
        "application_url",
        "redirect_uris",
        "logo",
        "wire_version",
        "last_used_at",
        "webhook_url",
        "masked_webhook_secret",
        "approval_state",
        "approval_reason",
        "submitted_for_review_at",
        "reviewed_at",
        "reviewed_by",
        "user_count",
        "created",
        "updated",
    )
    readonly_fields = fields

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("user", "reviewed_by", "review_request")
            .annotate(_user_count=Count("authorizations", distinct=True))
        )

    # Writes go through the developer services (approve/reject actions, delete); the object page is a
    # read-only record, and apps are registered on the developer portal or with `createapplication`.
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        if obj is not None:
            return False
        return super().has_change_permission(request, obj)

    def delete_model(self, request, obj):
        developer_services.application_delete(application=obj)

    def delete_queryset(self, request, queryset):
        for application in queryset:
            developer_services.application_delete(application=application)

    # --- approve and reject from the application's own page ---------------------------------------------

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("<int:object_id>/approve/", wrap(self.approve_view), name="oauth_application_approve"),
            path("<int:object_id>/reject/", wrap(self.reject_view), name="oauth_application_reject"),
            *super().get_urls(),
        ]

    def _review_target(self, request, object_id):
        """The application for a review button, or 403 (no change permission) / 404."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        application = self.get_object(request, str(object_id))
        if application is None:
            raise Http404("No such application.")
        return application

    def _change_url(self, application) -> str:
        return reverse("admin:oauth_application_change", args=[application.pk])

    def approve_view(self, request, object_id):
        """POST only: approve this application (the change page's Approve button)."""
        application = self._review_target(request, object_id)
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        developer_services.application_approve(application=application, moderator=request.user)
        self.message_user(request, f"Approved “{application.name}”.", messages.SUCCESS)
        return redirect(self._change_url(application))

    def reject_view(self, request, object_id):
        """GET: the reason form; POST: reject this application with the reason (required)."""
        application = self._review_target(request, object_id)
        form = RejectReasonForm(request.POST if request.method == "POST" else None)
        status = 200
        if form.is_bound:
            if form.is_valid():
                try:
                    developer_services.application_reject(
                        application=application, moderator=request.user, reason=form.cleaned_data["reason"]
                    )
                except ValidationFailed as exc:
                    form.add_error("reason", "; ".join((exc.errors or {}).get("reason", [exc.message])))
                else:
                    self.message_user(request, f"Rejected “{application.name}”.", messages.SUCCESS)
                    return redirect(self._change_url(application))
            status = 400
        context = {
            **self.admin_site.each_context(request),
            "title": f"Reject “{application.name}”",
            "opts": self.model._meta,
            "original": application,
            "form": form,
        }
        return TemplateResponse(request, "admin/oauth/application/reject_one.html", context, status=status)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        context["can_review"] = obj is not None and self.has_change_permission(request)
        return super().render_change_form(request, context, add=add, change=change, form_url=form_url, obj=obj)

    @admin.display(description="users", ordering="_user_count")
    def user_count(self, obj):
        return obj._user_count

    @admin.display(description="submitted for review", ordering="review_request__submitted_at")
    def submitted_for_review_at(self, obj):
        request_ = getattr(obj, "review_request", None)
        return request_.submitted_at if request_ else None

    @admin.display(description="webhook secret")
    def masked_webhook_secret(self, obj):
        return mask_credential(obj.webhook_secret)

    # The wire version (docs/decisions.md: Wire versions), through the same service as the portal.
    def _wire_version_set(self, request, queryset, version: str) -> None:
        count = 0
        for application in queryset:
            developer_services.application_wire_version_set(application=application, version=version)
            count += 1
        self.message_user(request, f"{count} application(s) now get the {version} wire.", messages.SUCCESS)

    @admin.action(description="Set wire version: spec", permissions=["change"])
    def wire_version_spec(self, request, queryset):
        self._wire_version_set(request, queryset, versions.SPEC)

    @admin.action(description="Set wire version: thingiverse", permissions=["change"])
    def wire_version_thingiverse(self, request, queryset):
        self._wire_version_set(request, queryset, versions.THINGIVERSE)

    @admin.action(description="Approve selected applications", permissions=["change"])
    def approve(self, request, queryset):
        count = 0
        for application in queryset:
            developer_services.application_approve(application=application, moderator=request.user)
            count += 1
        self.message_user(request, f"Approved {count} application(s).", messages.SUCCESS)

    @admin.action(description="Reject selected applications with a reason…", permissions=["change"])
    def reject(self, request, queryset):
        form = RejectReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            count = 0
            for application in queryset:
                try:
                    developer_services.application_reject(
                        application=application, moderator=request.user, reason=form.cleaned_data["reason"]
                    )
                except ValidationFailed as exc:
                    form.add_error("reason", "; ".join((exc.errors or {}).get("reason", [exc.message])))
                    break
                count += 1
            else:
                self.message_user(request, f"Rejected {count} application(s).", messages.SUCCESS)
                return None  # back to the changelist
        context = {
            **self.admin_site.each_context(request),
            "title": "Reject applications",
            "opts": self.model._meta,
            "queryset": queryset,
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "action_name": "reject",
        }
        return TemplateResponse(request, "admin/oauth/application/reject_reason.html", context)


# --- the moderation dashboard's panel (apps/core/adminkit/dashboard.py) ---------------------------------------------


def _apps_awaiting_review() -> list[dashboard.Row]:
    """Apps their owners submitted for review that are still pending, oldest request first."""
    pending = (
        Application.objects.filter(approval_state=Application.Approval.PENDING, review_request__isnull=False)
        .select_related("user", "review_request")
        .order_by("review_request__submitted_at", "pk")[:20]
    )
    return [
        dashboard.Row(
            label=application.name,
            url=reverse("admin:oauth_application_change", args=[application.pk]),
            detail=f"{application.get_app_type_display()} app by {application.user}",
            when=application.review_request.submitted_at,
        )
        for application in pending
    ]


dashboard.dashboard_panel_register(dashboard.Panel(
    key="apps-review",
    title="Apps awaiting review",
    rows=_apps_awaiting_review,
    permission="oauth.view_application",
    empty="No application is waiting for review.",
    more=lambda: ("Every submitted application", reverse("admin:oauth_application_changelist") + "?review=submitted"),
))
