"""Celery entry points of notifications: take ids, call one service. Each is safe to run twice (the
e-mail claim)."""
import smtplib

from celery import shared_task

from apps.core.broker.enqueue import retry_policy
from apps.notifications import services


@shared_task(**retry_policy(smtplib.SMTPException, OSError, backoff=30, max_retries=10))
def notification_email_send(notification_id: int) -> None:
    services.notification_email_send(notification_id=notification_id)


@shared_task(**retry_policy(smtplib.SMTPException, OSError, backoff=30, max_retries=10))
def notifications_digest_send(user_id: int) -> None:
    services.notifications_digest_send(user_id=user_id)


@shared_task
def notifications_digest_enqueue_all() -> None:
    services.notifications_digest_enqueue_all()
