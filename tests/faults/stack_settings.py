"""Settings of the fault stack's web process and worker: production's.

Production settings as deployed (DEBUG off, persistent connections, a dropped one replaced by
apps.core.db.postgresql, the fail-open cache, the Redis rate limit, Celery through Redis with its 90 s visibility timeout, the 5 s pending-task
redrive), with the environment pointing at the session's private PostgreSQL, Redis and store proxy
(tests/faults/conftest.py); the recovery times the tests measure are production's. One difference:
static files are not collected (the image build runs collectstatic for the manifest). A test may ask for
a worker that ignores the soft time limit (FAULTS_WORKER_IGNORES_SOFT_LIMIT, below).
"""
import os

from config.settings.production import *  # noqa: F401,F403

PAYMENT_ALLOW_TEST_BACKEND = True  # a test stack: orders are charged by the test backend on purpose

STORAGES = {  # noqa: F405
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"celery": {"level": "INFO"}},
}

if os.environ.get("FAULTS_WORKER_IGNORES_SOFT_LIMIT"):
    # A worker whose runs never see the soft time limit, as a run stuck in native code would not: only the
    # hard limit can stop them (tests/faults/test_processing_limits.py). The pool process installs its
    # SIGUSR1 handler after process init, so it is undone before each task.
    import signal

    from celery.signals import task_prerun

    @task_prerun.connect(weak=False)
    def _ignore_the_soft_time_limit(**kwargs):
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
