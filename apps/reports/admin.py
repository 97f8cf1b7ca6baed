"""The moderators' report queue and appeals (Django admin): open reports first, each action on an
intermediate page that asks for the reason or message the owner receives."""
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils.html import format_html

from apps.core.domain.exceptions import DomainError
from apps.reports import services
from apps.reports.forms import ModeratorNoteForm
from apps.reports.kinds import kind_get, target_get
from apps.reports.models import Appeal, Report


class OpenFirstFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "queue"

    def lookups(self, request, model_admin):
        return [("open", "Open (the queue)"), ("all", "All")]

    def queryset(self, request, queryset):
        if self.value() in (None, "open"):
            return queryset.filter(status="open")
        return queryset

    def choices(self, changelist):
        value = self.value() or "open"
        for lookup, title in self.lookup_choices:
            yield {
                "selected": value == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }


def _target_link(obj) -> str:
    spec = kind_get(obj.kind)
    item = target_get(spec, obj.target_id) if spec is not None else None
    if spec is None or item is None:
        return format_html("<em>gone</em> ({} {})", obj.kind, obj.target_id)
    hidden = " (hidden)" if getattr(item, "is_hidden", False) else ""
    return format_html('<a href="{}" target="_blank" rel="noopener">{}</a>{}', spec.url(item), spec.title(item), hidden)


class _NoteActionMixin(admin.ModelAdmin):
    def _with_note(self, request, queryset, *, title: str, label: str, apply):
        form = ModeratorNoteForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            try:
                result = apply(form.cleaned_data["note"])
            except DomainError as exc:
                self.message_user(request, exc.message, messages.ERROR)
                return None
            self.message_user(request, result, messages.SUCCESS)
            return None
        form.fields["note"].label = label
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.model._meta,
            "objects": list(queryset),
            "form": form,
            "action": request.POST.get("action", ""),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "reports/admin/note_action.html", context)


@admin.register(Report)
class ReportAdmin(_NoteActionMixin, admin.ModelAdmin):
    list_display = ("created", "kind", "target", "reason", "short_details", "reporter", "owner", "status")
    list_filter = (OpenFirstFilter, "kind", "reason")
    search_fields = ("details", "reporter__username", "owner__username")
    readonly_fields = (
        "reporter", "kind", "target_id", "target", "owner", "reason", "details", "created",
        "status", "handled_by", "handled_at", "resolution",
    )
    fields = readonly_fields
    actions = ("hide_targets", "warn_owners", "suspend_owners", "resolve", "dismiss")
    list_select_related = ("reporter", "owner")

    def has_add_permission(self, request):
        return False

    @admin.display(description="Reported item")
    def target(self, obj):
        return _target_link(obj)

    @admin.display(description="Details")
    def short_details(self, obj):
        return (obj.details[:80] + "…") if len(obj.details) > 80 else obj.details

    @admin.action(description="Hide the reported items (with reason; owners are told)", permissions=("change",))
    def hide_targets(self, request, queryset):
        return self._with_note(
            request, queryset, title="Hide the reported items", label="Reason (sent to each owner)",
            apply=lambda note: f"Hid {services.reports_hide_targets(reports=list(queryset), reason=note, moderator=request.user)} item(s).",
        )

    @admin.action(description="Warn the owners (a message)", permissions=("change",))
    def warn_owners(self, request, queryset):
        return self._with_note(
            request, queryset, title="Warn the owners", label="Warning (sent to each owner)",
            apply=lambda note: f"Warned {services.reports_warn_owners(reports=list(queryset), message=note, moderator=request.user)} member(s).",
        )

    @admin.action(description="Suspend the owners", permissions=("change",))
    def suspend_owners(self, request, queryset):
        return self._with_note(
            request, queryset, title="Suspend the owners", label="Reason of the suspension",
            apply=lambda note: f"Suspended {services.reports_suspend_owners(reports=list(queryset), reason=note, moderator=request.user)} member(s).",
        )

    @admin.action(description="Resolve (acted on elsewhere)", permissions=("change",))
    def resolve(self, request, queryset):
        done = services.reports_resolve(reports=list(queryset), moderator=request.user)
        self.message_user(request, f"Resolved {done} report(s).", messages.SUCCESS)

    @admin.action(description="Dismiss (nothing wrong)", permissions=("change",))
    def dismiss(self, request, queryset):
        done = services.reports_dismiss(reports=list(queryset), moderator=request.user)
        self.message_user(request, f"Dismissed {done} report(s).", messages.SUCCESS)


@admin.register(Appeal)
class AppealAdmin(_NoteActionMixin, admin.ModelAdmin):
    list_display = ("created", "kind", "target", "owner", "hidden_reason", "status")
    list_filter = ("status", "kind")
    readonly_fields = (
        "owner", "kind", "target_id", "target", "hidden_at", "hidden_reason", "text", "status", "created",
        "decided_by", "decided_at", "decision_note",
    )
    fields = readonly_fields
    actions = ("grant", "reject")
    list_select_related = ("owner",)

    def has_add_permission(self, request):
        return False

    @admin.display(description="Item")
    def target(self, obj):
        return _target_link(obj)

    def _decide(self, request, queryset, grant: bool):
        def apply(note):
            count = sum(
                services.appeal_decide(appeal=appeal, grant=grant, moderator=request.user, note=note)
                for appeal in queryset
            )
            return f"{'Granted' if grant else 'Rejected'} {count} appeal(s)."

        return self._with_note(
            request, queryset, title="Grant the appeals" if grant else "Reject the appeals",
            label="Note to the owner", apply=apply,
        )

    @admin.action(description="Grant (show the item again)", permissions=("change",))
    def grant(self, request, queryset):
        return self._decide(request, queryset, True)

    @admin.action(description="Reject (it stays hidden)", permissions=("change",))
    def reject(self, request, queryset):
        return self._decide(request, queryset, False)
