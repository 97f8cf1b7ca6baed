"""The site's report and appeal pages (session login): /report/<kind>/<id>, /appeal/<kind>/<id>."""
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from apps.core.domain.exceptions import DomainError, NotFound, RateLimited, ValidationFailed
from apps.core.site.pages import apply_errors, done, login_required_page
from apps.reports import services
from apps.reports.forms import AppealForm, ReportForm
from apps.reports.kinds import kind_get, target_get


def _item_or_404(kind: str, target_id: int, *, hidden_ok: bool):
    spec = kind_get(kind)
    item = target_get(spec, target_id) if spec is not None else None
    if item is None or (getattr(item, "is_hidden", False) and not hidden_ok):
        raise Http404
    return spec, item


@login_required_page
@require_http_methods(["GET", "POST"])
def report_page(request, kind: str, target_id: int):
    spec, item = _item_or_404(kind, target_id, hidden_ok=False)
    form = ReportForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            services.report_create(
                reporter=request.user, kind=kind, target_id=target_id,
                reason=form.cleaned_data["reason"], details=form.cleaned_data["details"],
            )
        except ValidationFailed as exc:
            apply_errors(form, exc.errors)
        except NotFound:
            raise Http404 from None
        except (RateLimited, DomainError) as exc:
            form.add_error(None, exc.message)
            status = exc.status_code
        else:
            return done(
                request, message="Thank you. The moderators will look at your report.", next_url=spec.url(item)
            )
    if form.errors and status == 200:
        status = 400
    context = {"form": form, "kind": spec, "item": item, "title": spec.title(item), "item_url": spec.url(item)}
    return render(request, "reports/report.html", context, status=status)


@login_required_page
@require_http_methods(["GET", "POST"])
def appeal_page(request, kind: str, target_id: int):
    spec, item = _item_or_404(kind, target_id, hidden_ok=True)
    owner = spec.owner(item)
    if owner is None or owner.pk != request.user.pk:
        raise Http404
    form = AppealForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            services.appeal_create(owner=request.user, kind=kind, target_id=target_id, text=form.cleaned_data["text"])
        except ValidationFailed as exc:
            apply_errors(form, exc.errors)
        except DomainError as exc:
            form.add_error(None, exc.message)
            status = exc.status_code
        else:
            return done(
                request, message="Your appeal was sent. A moderator will answer you by message.",
                next_url=spec.url(item),
            )
    if form.errors and status == 200:
        status = 400
    context = {"form": form, "kind": spec, "item": item, "title": spec.title(item)}
    return render(request, "reports/appeal.html", context, status=status)
