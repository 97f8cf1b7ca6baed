"""Settings of the Celery worker that bench/webhooks.py starts: bench settings, tasks through Redis.

Not eager (the worker consumes real broker messages) and the loopback receiver is an allowed URL.
"""
from bench.settings import *  # noqa: F401,F403

CELERY_TASK_ALWAYS_EAGER = False
ALLOW_PRIVATE_WEBHOOK_URLS = True
