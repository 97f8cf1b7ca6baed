"""Moderation shared by every hideable item (comment, Thing, make, group): issue 5.

Moderators hide an item in the Django admin with a reason. A hidden item vanishes from the API for
everyone except staff (its own creator included: a hidden item is treated as removed). The reason,
the moderator and the time are kept; unhiding restores the item unchanged.

- `Moderated`: the abstract fields a hideable model inherits.
- `visible_q(viewer)`: the filter a selector adds so hidden rows drop out unless the viewer is staff.
- `moderation_hide` / `moderation_unhide`: the services (row lock, update_fields, no-op on repeat).
- `HideWithReasonAdminMixin`: admin actions "Hide with reason" (intermediate page) and "Unhide".
"""
from typing import TYPE_CHECKING, ClassVar

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db import models, transaction
from django.db.models import Q
from django.template.response import TemplateResponse
from django.utils import timezone

if TYPE_CHECKING:
    from django.template.response import _TemplateForResponseT

REASON_MAX_LENGTH = 2000


class Moderated(models.Model):
    is_hidden = models.BooleanField(default=False)
    hidden_reason = models.TextField(blank=True, max_length=REASON_MAX_LENGTH)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        abstract = True


def viewer_sees_hidden(viewer) -> bool:
    return bool(viewer is not None and getattr(viewer, "is_authenticated", False) and viewer.is_staff)


def visible_q(viewer, *, prefix: str = "") -> Q:
    """Q() that keeps only unhidden rows, unless the viewer is staff. `prefix` walks a relation ("thing__")."""
    if viewer_sees_hidden(viewer):
        return Q()
    return Q(**{f"{prefix}is_hidden": False})


def moderation_hide(*, obj: Moderated, reason: str, by) -> bool:
    """Hide one item with a reason. Returns False when it was already hidden (the first reason is kept)."""
    model = type(obj)
    with transaction.atomic():
        row = model._default_manager.select_for_update().get(pk=obj.pk)
        if row.is_hidden:
            return False
        row.is_hidden = True
        row.hidden_reason = reason.strip()
        row.hidden_at = timezone.now()
        row.hidden_by = by
        row.save(update_fields=["is_hidden", "hidden_reason", "hidden_at", "hidden_by"])
    obj.is_hidden, obj.hidden_reason, obj.hidden_at, obj.hidden_by = True, row.hidden_reason, row.hidden_at, by
    return True


def moderation_unhide(*, obj: Moderated) -> bool:
    """Unhide one item; the reason is cleared. Returns False when it was not hidden."""
    model = type(obj)
    updated = model._default_manager.filter(pk=obj.pk, is_hidden=True).update(
        is_hidden=False, hidden_reason="", hidden_at=None, hidden_by=None
    )
    if updated:
        obj.is_hidden, obj.hidden_reason, obj.hidden_at, obj.hidden_by = False, "", None, None
    return bool(updated)


class HideReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=REASON_MAX_LENGTH)

    def clean_reason(self):
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError("Give the reason for hiding.")
        return reason


if TYPE_CHECKING:
    _AdminBase = admin.ModelAdmin  # what the mixin is mixed into: message_user, admin_site, model
else:
    _AdminBase = object


class HideWithReasonAdminMixin(_AdminBase):
    """Admin actions to hide (with a reason, on an intermediate page) and unhide items.

    `on_hidden(obj)` / `on_unhidden(obj)` hooks let an app adjust counters (e.g. a Thing's comment_count).
    """

    actions: tuple[str, ...] = ("hide_with_reason", "unhide")
    moderation_list_display = ("is_hidden", "hidden_reason")
    # The item's own page has "Hide…" / "Unhide" buttons too (issue 26): the same services as the actions.
    change_form_template: ClassVar["_TemplateForResponseT | None"] = "core/admin/moderated_change_form.html"

    def get_urls(self):
        from django.urls import path

        info = self.model._meta.app_label, self.model._meta.model_name
        own = [
            path("<path:object_id>/hide/", self.admin_site.admin_view(self.hide_view), name="%s_%s_hide" % info),
            path(
                "<path:object_id>/unhide/", self.admin_site.admin_view(self.unhide_view), name="%s_%s_unhide" % info
            ),
        ]
        return own + super().get_urls()

    def _moderated_object(self, request, object_id):
        from django.core.exceptions import PermissionDenied
        from django.http import Http404

        obj = self.get_object(request, object_id)
        if obj is None:
            raise Http404
        if not self.has_change_permission(request, obj):
            raise PermissionDenied
        return obj

    def _back_to_change(self, obj):
        from django.shortcuts import redirect
        from django.urls import reverse

        info = self.model._meta.app_label, self.model._meta.model_name
        return redirect(reverse("admin:%s_%s_change" % info, args=[obj.pk], current_app=self.admin_site.name))

    def hide_view(self, request, object_id):
        """GET: the reason's form; POST: hide this one item with it (as the "Hide with reason" action)."""
        obj = self._moderated_object(request, object_id)
        form = HideReasonForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            if moderation_hide(obj=obj, reason=form.cleaned_data["reason"], by=request.user):
                self.on_hidden(obj)
                self.message_user(request, "Hidden.", messages.SUCCESS)
            else:
                self.message_user(request, "It was hidden already.", messages.WARNING)
            return self._back_to_change(obj)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Hide {self.model._meta.verbose_name}",
            "opts": self.model._meta,
            "objects": [obj],
            "form": form,
            "single": True,
        }
        return TemplateResponse(request, "core/admin/hide_confirm.html", context)

    def unhide_view(self, request, object_id):
        from django.http import HttpResponseNotAllowed

        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        obj = self._moderated_object(request, object_id)
        if moderation_unhide(obj=obj):
            self.on_unhidden(obj)
            self.message_user(request, "Shown again.", messages.SUCCESS)
        return self._back_to_change(obj)

    def on_hidden(self, obj):  # pragma: no cover - default hook
        pass

    def on_unhidden(self, obj):  # pragma: no cover - default hook
        pass

    @admin.action(description="Hide with reason", permissions=("change",))
    def hide_with_reason(self, request, queryset):
        form = HideReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            done = 0
            for obj in queryset:
                if moderation_hide(obj=obj, reason=form.cleaned_data["reason"], by=request.user):
                    self.on_hidden(obj)
                    done += 1
            self.message_user(request, f"Hid {done} item(s).", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": f"Hide {self.model._meta.verbose_name_plural}",
            "opts": self.model._meta,
            "objects": list(queryset),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "core/admin/hide_confirm.html", context)

    @admin.action(description="Unhide", permissions=("change",))
    def unhide(self, request, queryset):
        done = 0
        for obj in queryset:
            if moderation_unhide(obj=obj):
                self.on_unhidden(obj)
                done += 1
        self.message_user(request, f"Unhid {done} item(s).", messages.SUCCESS)
