"""Celery entry points of accounts: take ids, call one service."""

import smtplib

from celery import shared_task

from apps.accounts import services
from apps.accounts.models import User
from apps.core.broker.enqueue import retry_policy


@shared_task(**retry_policy(smtplib.SMTPException, OSError, backoff=30, max_retries=10))
def send_verification_email(user_id: int) -> None:
    # Safe to run twice: the worst case is a second, equally valid link.
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is not None:
        services.user_deliver_verification(user=user)


@shared_task(**retry_policy(smtplib.SMTPException, OSError, backoff=30, max_retries=10))
def send_password_reset_email(email: str) -> None:
    # Safe to run twice: a second mail holds a second, equally valid link.
    services.user_deliver_password_reset(email=email)
