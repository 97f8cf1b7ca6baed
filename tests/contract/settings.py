"""Settings of the live server `make fuzz` starts: the test settings, with the public addresses taken from
the environment (the fuzz harness points them at the live server) instead of `http://testserver`.

Celery tasks stay eager (no worker to run), e-mail stays in memory, and the rate limit comes from the
environment like everywhere else (the harness raises it: the limiter has its own tests, and a fuzzer that
hits it would only be testing 429s).
"""
from config.settings.base import API_BASE_URL, AUTH_BASE_URL, SITE_URL  # noqa: F401  (the environment's)
from config.settings.test import *  # noqa: F401,F403

DEBUG = False
# Connections kept between requests, as production keeps them (config/settings/production.py): a new
# PostgreSQL backend for each of the run's ~8,200 requests cost the database server about 5 ms of CPU
# each, some 40 CPU seconds of a CI run (issue 23: CI in half the time).
DATABASES["default"]["CONN_MAX_AGE"] = 60  # noqa: F405

