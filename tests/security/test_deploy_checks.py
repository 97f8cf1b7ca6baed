"""Production settings as an operator runs them (issue 22): `check --deploy` names no security warning,
and the test payment backend, which charges nobody, is refused unless PAYMENT_ALLOW_TEST_BACKEND says so."""
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from apps.orders.checks import payment_backend_problems, payment_backend_refuse_unless_allowed

ROOT = Path(__file__).resolve().parents[2]
# Production settings need these; a run may not have them in its environment (CI uses the local servers'
# defaults). Nothing connects: the checks and the WSGI import only read them.
SERVERS = {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/thingyard", "REDIS_URL": "redis://127.0.0.1:6379/0"}


def _check_deploy(**extra_env) -> subprocess.CompletedProcess:
    env = {
        key: value for key, value in os.environ.items()
        if not key.startswith(("PAYMENT_", "DJANGO_"))
    }
    env = {**SERVERS, **env}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        **extra_env,
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=240,
    )


def _ids(output: str) -> set[str]:
    return set(re.findall(r"\(([\w.]+\.[EW]\d{3})\)", output))


def test_check_deploy_under_production_settings_names_no_security_warning():
    done = _check_deploy(PAYMENT_ALLOW_TEST_BACKEND="true")
    found = _ids(done.stdout + done.stderr)
    # thingyard.W001 only says node_modules is incomplete on a machine that has not run `npm ci`.
    assert found <= {"thingyard.W001"}, done.stdout + done.stderr
    assert done.returncode == 0


def test_check_deploy_refuses_the_test_payment_backend_and_names_the_setting():
    done = _check_deploy()
    output = done.stdout + done.stderr
    assert "orders.E001" in output and "PAYMENT_ALLOW_TEST_BACKEND" in output
    assert done.returncode != 0


def test_the_web_process_refuses_the_test_backend_at_start_unless_allowed(settings):
    settings.PAYMENT_BACKEND = "apps.orders.payments.TestPaymentBackend"
    settings.PAYMENT_ALLOW_TEST_BACKEND = False
    with pytest.raises(ImproperlyConfigured, match="PAYMENT_ALLOW_TEST_BACKEND"):
        payment_backend_refuse_unless_allowed()
    settings.PAYMENT_ALLOW_TEST_BACKEND = True
    payment_backend_refuse_unless_allowed()
    assert payment_backend_problems() == []


def test_an_unimportable_backend_is_an_error(settings):
    settings.PAYMENT_BACKEND = "apps.orders.payments.NoSuchBackend"
    assert [problem.id for problem in payment_backend_problems()] == ["orders.E002"]


def test_the_web_process_does_not_start_with_the_test_backend_unless_allowed():
    """config/wsgi.py, as gunicorn loads it, under production settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PAYMENT_", "DJANGO_"))}
    env = {**SERVERS, **env}
    env.update(DJANGO_SETTINGS_MODULE="config.settings.production", DJANGO_SECRET_KEY=secrets.token_urlsafe(50))
    load = [sys.executable, "-c", "import config.wsgi"]
    refused = subprocess.run(load, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert refused.returncode != 0
    assert "orders.E001" in refused.stderr and "PAYMENT_ALLOW_TEST_BACKEND" in refused.stderr
    allowed = subprocess.run(load, cwd=ROOT, env={**env, "PAYMENT_ALLOW_TEST_BACKEND": "true"},
                             capture_output=True, text=True, timeout=240)
    assert allowed.returncode == 0, allowed.stderr[-2000:]
