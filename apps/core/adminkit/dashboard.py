"""The moderators' dashboard in the Django admin (/admin/moderation/, linked from the admin index).

Core imports no app, so each app adds its own panel from its admin module (NetBox-style registry, as
with the site's page sections): apps.developers "Apps awaiting review", apps.webhooks "Failing webhook
endpoints". The panel of recently hidden content is core's own: every model that inherits
`moderation.Moderated` and is registered in the admin contributes its latest hidden rows, with the
reason, the moderator and links to the admin record and the page on the site.

Staff only (the admin's login); a panel, and each hidden row, shows only when the moderator may view
its model.
"""
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.apps import apps as django_apps
from django.contrib import admin
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse

from apps.core.adminkit.sitelink import site_url_for
from apps.core.domain.moderation import Moderated

RECENT_HIDDEN = 20


@dataclass(frozen=True)
class Row:
    label: str
    url: str  # the admin record (or list) it is about
    detail: str = ""
    when: datetime | None = None
    site_url: str | None = None


@dataclass(frozen=True)
class Panel:
    key: str
    title: str
    rows: Callable[[], list[Row]]
    permission: str  # "app_label.view_model": who may see the panel
    empty: str = "Nothing here."
    more: Callable[[], tuple[str, str]] | None = field(default=None)  # (link text, url)


_PANELS: dict[str, Panel] = {}


def dashboard_panel_register(panel: Panel) -> None:
    """Add (or replace, by key) a panel; panels show in registration order after "Recently hidden"."""
    _PANELS[panel.key] = panel


def dashboard_panels() -> list[Panel]:
    return list(_PANELS.values())


def _admin_change_url(obj) -> str | None:
    opts = obj._meta
    try:
        return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    except NoReverseMatch:
        return None


def hidden_recent(*, user, site=None, limit: int = RECENT_HIDDEN) -> list[Row]:
    """The latest hidden items of every moderated model registered in the admin that `user` may view,
    newest first; one query per such model."""
    site = site or admin.site
    rows = []
    for model in django_apps.get_models():
        if not issubclass(model, Moderated) or not site.is_registered(model):
            continue
        if not user.has_perm(f"{model._meta.app_label}.view_{model._meta.model_name}"):
            continue
        model_admin = site.get_model_admin(model)
        hidden = model._default_manager.filter(is_hidden=True).select_related("hidden_by").order_by("-hidden_at", "-pk")
        for obj in hidden[:limit]:
            moderator = obj.hidden_by.get_username() if obj.hidden_by else "—"
            rows.append(Row(
                label=f"{str(model._meta.verbose_name).capitalize()}: {obj}",
                url=_admin_change_url(obj) or "",
                detail=f"{obj.hidden_reason} (hidden by {moderator})",
                when=obj.hidden_at,
                site_url=site_url_for(model_admin, user, obj),
            ))
    rows.sort(key=lambda row: (row.when is not None, row.when), reverse=True)
    return rows[:limit]


def moderation_dashboard(request):
    """The dashboard page (wrapped in admin.site.admin_view: staff only)."""
    panels = [
        {"key": panel.key, "title": panel.title, "rows": panel.rows(), "empty": panel.empty,
         "more": panel.more() if panel.more else None}
        for panel in dashboard_panels()
        if request.user.has_perm(panel.permission)
    ]
    context = {
        **admin.site.each_context(request),
        "title": "Moderation dashboard",
        "hidden": hidden_recent(user=request.user),
        "panels": panels,
    }
    return TemplateResponse(request, "admin/moderation_dashboard.html", context)
