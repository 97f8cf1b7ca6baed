"""Settings of the fault stack's web process and worker: production's.

Production settings as deployed (DEBUG off, persistent connections with health checks, the fail-open
cache, the Redis rate limit, Celery through Redis with its 90 s visibility timeout, the 5 s pending-task
redrive), with the environment pointing at the session's private PostgreSQL, Redis and store proxy
(tests/faults/conftest.py); the recovery times the tests measure are production's. One difference:
static files are not collected (the image build runs collectstatic for the manifest).
"""
from config.settings.production import *  # noqa: F401,F403

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
