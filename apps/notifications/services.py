"""Every change of notifications: sending (one member, or many at once for a fan-out), reading, and the
e-mails (one per notification, or the daily digest, by User.notify_email).

The bell's count is User.notifications_unread, moved by exact deltas in the same transaction as the rows
it counts: +1 for each row an INSERT … ON CONFLICT DO NOTHING RETURNING actually added, -1 for each row a
conditional UPDATE actually marked read. Concurrent sends and reads therefore never lose a step (the
F() update locks the user's row), and a repeated fan-out adds nothing.

E-mails are claimed before they are sent (`emailed_at`, a conditional UPDATE): a task run twice, or two
digests at once, never mail a notification twice; a failed send gives the claim back and retries.
"""
import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.template.loader import render_to_string
from django.utils import timezone

from apps.core.pipeline.api import site_url
from apps.core.broker.enqueue import task_enqueue_on_commit
from apps.notifications import rules, selectors
from apps.notifications.models import Notification

log = logging.getLogger(__name__)
User = get_user_model()
INSERT_BATCH = 1000


def _unread_add(user_ids, delta: int) -> None:
    if user_ids:
        User.objects.filter(pk__in=sorted(set(user_ids))).update(
            notifications_unread=Greatest(F("notifications_unread") + delta, Value(0))
        )


def _insert(*, recipient_ids, actor, kind: str, key: str, subject: str, url: str, body: str) -> list[tuple[int, int]]:
    """INSERT one row per recipient unless (recipient, key) is there already; the (id, recipient) added.
    One statement for any number of recipients (PostgreSQL, and SQLite for the quick start)."""
    ids = sorted(recipient_ids)
    if len(ids) > INSERT_BATCH:  # bound the statement's parameters (8 a row; SQLite allows 32,766)
        return [
            added
            for start in range(0, len(ids), INSERT_BATCH)
            for added in _insert(recipient_ids=ids[start:start + INSERT_BATCH], actor=actor, kind=kind, key=key,
                                 subject=subject, url=url, body=body)
        ]
    if not ids:
        return []
    table = connection.ops.quote_name(Notification._meta.db_table)
    now = timezone.now()
    row = "(%s, %s, %s, %s, %s, %s, %s, %s)"
    params: list = []
    for recipient_id in ids:
        params += [recipient_id, actor.pk if actor is not None else None, kind, subject, url, body, key, now]
    q = connection.ops.quote_name  # `key` is a keyword to SQLite
    columns = ", ".join(q(c) for c in ("recipient_id", "actor_id", "kind", "subject", "url", "body", "key", "created"))
    sql = (
        f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * len(ids))} "
        f"ON CONFLICT ({q('recipient_id')}, {q('key')}) DO NOTHING RETURNING {q('id')}, {q('recipient_id')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(pk, rid) for pk, rid in cursor.fetchall()]


def _email_each_enqueue(notification_ids) -> None:
    from apps.notifications import tasks

    for notification_id in notification_ids:
        task_enqueue_on_commit(tasks.notification_email_send, args=[notification_id])


def notification_send(
    *, recipient, actor, kind: str, key: str, subject: str = "", url: str = "", body: str = ""
) -> int | None:
    """Tell `recipient` that `actor` did something: the new notification's id, or None (one's own action,
    an inactive account, or already told: once per (recipient, key)).

    Side effects: the bell's count; an e-mail task on commit when the member wants one per notification."""
    if not rules.notification_is_wanted(recipient=recipient, actor=actor):
        return None
    with transaction.atomic(savepoint=False):
        added = _insert(recipient_ids=[recipient.pk], actor=actor, kind=kind, key=key,
                        subject=rules.subject_of(subject), url=url, body=body)
        if not added:
            return None
        _unread_add([recipient.pk], 1)
        if recipient.notify_email == User.NotifyEmail.EACH and recipient.email:
            _email_each_enqueue([added[0][0]])
    return added[0][0]


def notification_send_many(
    *, recipient_ids, actor, kind: str, key: str, subject: str = "", url: str = ""
) -> int:
    """One notification for each of `recipient_ids` (a fan-out: a new Thing to the author's followers),
    leaving out the actor and inactive accounts. Safe to run twice: the rows already there stay
    (notifications_once). Returns how many were added.

    Side effects: the bell's counts; e-mail tasks on commit for those who want one per notification."""
    ids = set(recipient_ids) - ({actor.pk} if actor is not None else set())
    if not ids:
        return 0
    active = set(User.objects.filter(pk__in=ids, is_active=True).values_list("pk", flat=True))
    with transaction.atomic():
        added = _insert(recipient_ids=active, actor=actor, kind=kind, key=key,
                        subject=rules.subject_of(subject), url=url, body="")
        _unread_add([rid for _, rid in added], 1)
        wants_each = set(
            User.objects.filter(pk__in=[rid for _, rid in added], notify_email=User.NotifyEmail.EACH)
            .exclude(email="").values_list("pk", flat=True)
        ) if added else set()
        _email_each_enqueue([pk for pk, rid in added if rid in wants_each])
    return len(added)


def notification_mark_read(*, notification: Notification) -> None:
    """Mark one of the member's notifications read; already read is a no-op."""
    with transaction.atomic():
        if Notification.objects.filter(pk=notification.pk, read_at__isnull=True).update(read_at=timezone.now()):
            _unread_add([notification.recipient_id], -1)


def notifications_mark_all_read(*, user) -> int:
    """Mark every notification of the member read. Returns how many were unread."""
    with transaction.atomic():
        marked = Notification.objects.filter(recipient=user, read_at__isnull=True).update(read_at=timezone.now())
        if marked:
            _unread_add([user.pk], -marked)
    return marked


# --- e-mail --------------------------------------------------------------------------------------------


def _claim(queryset) -> tuple[list[Notification], object]:
    """Claim unmailed notifications with one conditional UPDATE; return the claimed rows and the stamp."""
    stamp = timezone.now()
    ids = list(queryset.values_list("pk", flat=True))
    Notification.objects.filter(pk__in=ids, emailed_at__isnull=True).update(emailed_at=stamp)
    claimed = list(
        Notification.objects.filter(pk__in=ids, emailed_at=stamp).select_related("actor", "recipient").order_by("pk")
    )
    return claimed, stamp


def _unclaim(notifications, stamp) -> None:
    Notification.objects.filter(pk__in=[n.pk for n in notifications], emailed_at=stamp).update(emailed_at=None)


def _lines(notifications) -> list[dict]:
    return [
        {"sentence": rules.notification_sentence(n), "body": rules.excerpt(n.body, 500),
         "link": (n.url if n.url.startswith("http") else site_url(n.url)) if n.url else ""}
        for n in notifications
    ]


def _mail(*, user, subject: str, template: str, notifications) -> None:
    context = {"user": user, "lines": _lines(notifications), "settings_link": site_url("/account/#notifications")}
    send_mail(
        subject=subject, message=render_to_string(template, context),
        from_email=settings.DEFAULT_FROM_EMAIL, recipient_list=[user.email],
    )


def notification_email_send(*, notification_id: int) -> bool:
    """Mail one notification to a member who wants one per notification; False when there is nothing to
    send (already mailed, read, or the member changed their choice). Network call outside any transaction."""
    claimed, stamp = _claim(
        Notification.objects.filter(
            pk=notification_id, emailed_at__isnull=True, read_at__isnull=True,
            recipient__notify_email=User.NotifyEmail.EACH, recipient__is_active=True,
        ).exclude(recipient__email="")
    )
    if not claimed:
        return False
    notification = claimed[0]
    try:
        _mail(
            user=notification.recipient, subject=rules.notification_sentence(notification),
            template="notifications/email/one.txt", notifications=claimed,
        )
    except Exception:
        _unclaim(claimed, stamp)
        raise
    return True


def notifications_digest_send(*, user_id: int, now=None) -> int:
    """The daily digest of one member: every unread notification not mailed yet (within the window), in
    one e-mail. Returns how many it listed; 0 sends nothing. Safe to run twice (the claim)."""
    now = now or timezone.now()
    since = now - timedelta(days=rules.DIGEST_WINDOW_DAYS)
    claimed, stamp = _claim(
        Notification.objects.filter(
            recipient_id=user_id, read_at__isnull=True, emailed_at__isnull=True, created__gte=since,
            recipient__notify_email=User.NotifyEmail.DAILY, recipient__is_active=True,
        ).exclude(recipient__email="")
    )
    if not claimed:
        return 0
    count = len(claimed)
    try:
        _mail(
            user=claimed[0].recipient,
            subject=f"Your Thingyard digest: {count} new notification{'s' if count != 1 else ''}",
            template="notifications/email/digest.txt", notifications=claimed,
        )
    except Exception:
        _unclaim(claimed, stamp)
        raise
    return count


def notifications_digest_enqueue_all() -> int:
    """Beat, daily: one digest task per member due one. Returns how many were queued."""
    from apps.notifications import tasks

    user_ids = selectors.notification_digest_due_user_ids()
    for user_id in user_ids:
        task_enqueue_on_commit(tasks.notifications_digest_send, args=[user_id])
    return len(user_ids)
