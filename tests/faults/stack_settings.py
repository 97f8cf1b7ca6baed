"""Settings of the fault stack's web process and worker: production's, plus quick broker redelivery.

Production settings as deployed (DEBUG off, persistent connections, a dropped one replaced by
apps.core.dbbackend, the fail-open cache, the Redis rate limit, Celery through Redis), with the environment pointing at the session's
private PostgreSQL, Redis and store proxy (tests/faults/conftest.py). Two differences: the broker's
visibility timeout is shortened, so a task whose worker was killed is redelivered in seconds instead of
an hour, and static files are not collected (the image build runs collectstatic for the manifest).
"""
from config.settings.production import *  # noqa: F401,F403

STORAGES = {  # noqa: F405
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 4,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"celery": {"level": "INFO"}},
}
