"""Settings of `make load`'s web process, worker and orchestrator: production's, as deployed.

The only differences: static files are not collected (the image build runs collectstatic for the
manifest storage) and logging stays at warnings (a 429 of the rate-limit probe is expected, not news).
"""
from config.settings.production import *  # noqa: F401,F403

PAYMENT_ALLOW_TEST_BACKEND = True  # a test stack: orders are charged by the test backend on purpose

STORAGES = {  # noqa: F405
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"django.request": {"level": "ERROR"}},
}
