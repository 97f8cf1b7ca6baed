"""Settings of the real Celery worker the integration tests start (test_worker.py).

The test settings, except that tasks go through the Redis broker (not eager: the worker's own
countdown retries must be queued, not run inline) and the loopback receiver is an allowed URL.
"""
from config.settings.test import *  # noqa: F401,F403

CELERY_TASK_ALWAYS_EAGER = False
ALLOW_PRIVATE_WEBHOOK_URLS = True
