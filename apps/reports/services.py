"""Every state change of reports and appeals: members report, moderators act on the queue (admin),
owners appeal once. Owners hear of each decision by a moderator's notice (accounts)."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts import services as account_services
from apps.core.domain.exceptions import NotFound, PermissionDenied, RateLimited, RuleViolation, ValidationFailed
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.core.security.throttle import FailureLimit, failure_record, locked_for, wait_message
from apps.notifications import services as notification_services
from apps.reports import rules
from apps.reports.kinds import KINDS, ReportKind, kind_get, target_get
from apps.reports.models import Appeal, Report

REPORT_LIMIT = FailureLimit("reports:reporter", limit=rules.REPORTS_PER_HOUR, window_seconds=3600, lock_seconds=3600)


def _notice(*, moderator, recipient, body: str, subject: str, url: str = "") -> None:
    """A moderator's notice: the private message (accounts) and a notification (the bell, e-mail)."""
    message = account_services.moderation_notice_send(moderator=moderator, recipient=recipient, body=body)
    if message is not None:
        notification_services.notification_send(
            recipient=recipient, actor=None, kind="moderation", key=f"moderation:message:{message.pk}",
            subject=subject, url=url, body=body,
        )


def _kind_or_404(name: str) -> ReportKind:
    kind = kind_get(name)
    if kind is None:
        raise NotFound()
    return kind


def report_create(*, reporter, kind: str, target_id, reason: str, details: str = "") -> Report:
    """File a report; the same member's open report of the same item is returned instead of a second.

    NotFound for an unknown kind or item; ValidationFailed for a bad reason or details; RuleViolation
    for one's own item; RateLimited past REPORTS_PER_HOUR."""
    spec = _kind_or_404(kind)
    item = target_get(spec, target_id)
    if item is None or getattr(item, "is_hidden", False) or getattr(item, "is_active", True) is False:
        raise NotFound()
    owner = spec.owner(item)
    reasons = rules.report_blockers(reporter=reporter, owner=owner)
    if reasons:
        raise RuleViolation(reasons[0])
    errors = {}
    if reason not in Report.Reason.values:
        errors["reason"] = ["Choose a reason."]
    details = (details or "").strip()
    if len(details) > rules.DETAILS_MAX_LENGTH:
        errors["details"] = [f"At most {rules.DETAILS_MAX_LENGTH} characters ({len(details)} given)."]
    if errors:
        raise ValidationFailed("The report was not sent.", errors=errors)
    existing = Report.objects.filter(
        reporter=reporter, kind=kind, target_id=item.pk, status=Report.Status.OPEN
    ).first()
    if existing is not None:
        return existing
    wait = locked_for(REPORT_LIMIT, str(reporter.pk))
    if wait:
        raise RateLimited(f"Too many reports. Try again in {wait_message(wait)}.", retry_after=wait)
    failure_record(REPORT_LIMIT, str(reporter.pk))
    try:
        with transaction.atomic():
            return Report.objects.create(
                reporter=reporter, kind=kind, target_id=item.pk, owner=owner, reason=reason, details=details
            )
    except IntegrityError:  # the same member's double click raced: one open report stays
        return Report.objects.get(reporter=reporter, kind=kind, target_id=item.pk, status=Report.Status.OPEN)


def _close(reports, *, status: str, moderator, note: str) -> int:
    ids = [report.pk for report in reports]
    return Report.objects.filter(pk__in=ids, status=Report.Status.OPEN).update(
        status=status, handled_by=moderator, handled_at=timezone.now(), resolution=note.strip()
    )


def _open_reports_of(kind: str, target_id: int):
    return Report.objects.filter(kind=kind, target_id=target_id, status=Report.Status.OPEN)


def reports_dismiss(*, reports, moderator, note: str = "") -> int:
    """Nothing to act on: the reports leave the queue."""
    return _close(reports, status=Report.Status.DISMISSED, moderator=moderator, note=note)


def reports_resolve(*, reports, moderator, note: str = "") -> int:
    """Acted on outside the queue (e.g. the item was edited): the reports leave the queue."""
    return _close(reports, status=Report.Status.ACTIONED, moderator=moderator, note=note)


def item_hide(*, kind: str, item, reason: str, moderator, notify: bool = True) -> bool:
    """Hide one item with a reason, keep what hiding changes, and tell its owner why, with the way to
    appeal. False when it was already hidden or cannot be hidden (a topic, a member)."""
    spec = _kind_or_404(kind)
    if spec.after_hiding is None:
        return False
    if not moderation_hide(obj=item, reason=reason, by=moderator):
        return False
    spec.after_hiding(item)
    owner = spec.owner(item)
    if notify and owner is not None:
        _notice(
            moderator=moderator,
            recipient=owner,
            subject=spec.title(item),
            url=spec.url(item),
            body=(
                f"Your {spec.label} “{spec.title(item)}” was hidden by a moderator.\n\n"
                f"Reason: {reason.strip()}\n\n"
                f"It is no longer shown to others. You can appeal once, from its page: "
                f"{spec.url(item)}"
            ),
        )
    return True


def reports_hide_targets(*, reports, reason: str, moderator) -> int:
    """Hide every item the reports name (once each), tell the owners, and close every open report of
    those items. The number of items hidden."""
    hidden = 0
    seen = set()
    for report in reports:
        key = (report.kind, report.target_id)
        if key in seen:
            continue
        seen.add(key)
        spec = kind_get(report.kind)
        item = target_get(spec, report.target_id) if spec is not None else None
        if item is not None and item_hide(kind=report.kind, item=item, reason=reason, moderator=moderator):
            hidden += 1
        _close(_open_reports_of(*key), status=Report.Status.ACTIONED, moderator=moderator, note=f"Hidden: {reason}")
    return hidden


def reports_warn_owners(*, reports, message: str, moderator) -> int:
    """Send each reported item's owner a warning (once per owner); the reports are acted on."""
    warned = set()
    for report in reports:
        if report.owner_id and report.owner_id not in warned:
            _notice(
                moderator=moderator, recipient=report.owner, subject="your account",
                body=f"A warning from the moderators:\n\n{message.strip()}",
            )
            warned.add(report.owner_id)
    _close(reports, status=Report.Status.ACTIONED, moderator=moderator, note=f"Warned: {message}")
    return len(warned)


def reports_suspend_owners(*, reports, reason: str, moderator) -> int:
    """Suspend each reported item's owner (accounts.user_suspend: no sign-in, tokens revoked)."""
    suspended = set()
    for report in reports:
        owner = report.owner
        if owner is not None and owner.pk not in suspended and owner.is_active:
            account_services.user_suspend(user=owner, reason=reason, actor=moderator)
            suspended.add(owner.pk)
    _close(reports, status=Report.Status.ACTIONED, moderator=moderator, note=f"Suspended: {reason}")
    return len(suspended)


# --- appeals ---------------------------------------------------------------------------------------------


def appeal_create(*, owner, kind: str, target_id, text: str) -> Appeal:
    """The owner's one appeal against the current hiding of an item. RuleViolation when not theirs, not
    hidden, or already appealed; ValidationFailed for an empty or too long text."""
    spec = _kind_or_404(kind)
    item = target_get(spec, target_id)
    if item is None:
        raise NotFound()
    reasons = rules.appeal_blockers(owner=owner, item_owner=spec.owner(item), is_hidden=getattr(item, "is_hidden", False))
    if reasons:
        raise PermissionDenied(reasons[0]) if "owner" in reasons[0] else RuleViolation(reasons[0])
    text = (text or "").strip()
    if not text:
        raise ValidationFailed("The appeal was not sent.", errors={"text": ["Say why it should be shown again."]})
    if len(text) > rules.APPEAL_MAX_LENGTH:
        raise ValidationFailed(
            "The appeal was not sent.",
            errors={"text": [f"At most {rules.APPEAL_MAX_LENGTH} characters ({len(text)} given)."]},
        )
    try:
        with transaction.atomic():
            return Appeal.objects.create(
                owner=owner, kind=kind, target_id=item.pk, hidden_at=item.hidden_at,
                hidden_reason=item.hidden_reason, text=text,
            )
    except IntegrityError:
        raise RuleViolation("You have already appealed; a moderator will answer you by message.") from None


def appeal_decide(*, appeal: Appeal, grant: bool, moderator, note: str = "") -> bool:
    """Grant (the item is shown again) or reject an open appeal; the owner is told. False if decided."""
    updated = Appeal.objects.filter(pk=appeal.pk, status=Appeal.Status.OPEN).update(
        status=Appeal.Status.GRANTED if grant else Appeal.Status.REJECTED,
        decided_by=moderator, decided_at=timezone.now(), decision_note=note.strip(),
    )
    if not updated:
        return False
    spec = kind_get(appeal.kind)
    item = target_get(spec, appeal.target_id) if spec is not None else None
    if grant and item is not None and moderation_unhide(obj=item) and spec is not None and spec.after_hiding:
        spec.after_hiding(item)
    title = spec.title(item) if (spec is not None and item is not None) else f"{appeal.kind} {appeal.target_id}"
    verdict = "granted: it is shown again" if grant else "rejected: it stays hidden"
    _notice(
        moderator=moderator,
        recipient=appeal.owner,
        subject=title,
        url=spec.url(item) if (spec is not None and item is not None) else "",
        body=f"Your appeal about “{title}” was {verdict}." + (f"\n\n{note.strip()}" if note.strip() else ""),
    )
    return True


def kinds() -> dict:
    return KINDS
