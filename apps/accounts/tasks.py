"""Celery entry points of accounts: take ids, call one service."""

import smtplib

from celery import shared_task

from apps.accounts import services
from apps.accounts.models import User


@shared_task(
    autoretry_for=(smtplib.SMTPException, OSError),
    retry_backoff=30,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=5,
)
def send_verification_email(user_id: int) -> None:
    # Safe to run twice: the worst case is a second, equally valid link.
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is not None:
        services.user_deliver_verification(user=user)
