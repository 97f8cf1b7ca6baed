"""Pure rules of reports and appeals: what may be reported and appealed, by whom, and the limits."""

DETAILS_MAX_LENGTH = 2000
APPEAL_MAX_LENGTH = 4000
REPORTS_PER_HOUR = 20


def report_blockers(*, reporter, owner) -> list[str]:
    if reporter is None or not reporter.is_authenticated:
        return ["Log in to report."]
    if owner is not None and owner.pk == reporter.pk:
        return ["This is yours: you cannot report it."]
    return []


def appeal_blockers(*, owner, item_owner, is_hidden: bool) -> list[str]:
    if item_owner is None or owner.pk != item_owner.pk:
        return ["Only its owner may appeal."]
    if not is_hidden:
        return ["This is not hidden: there is nothing to appeal."]
    return []
