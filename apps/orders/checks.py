"""Production refuses a payment backend that charges nobody unless a setting says so (docs/security.md,
issue 22): a system check error (`manage.py check`, `migrate`, `runserver`) and, in the web process, a
startup error (config/wsgi.py runs the checks tagged "startup")."""
from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string


def payment_backend_problems() -> list[checks.CheckMessage]:
    try:
        backend = import_string(settings.PAYMENT_BACKEND)
    except ImportError as exc:
        return [checks.Error(
            f"PAYMENT_BACKEND {settings.PAYMENT_BACKEND!r} cannot be imported: {exc}.", id="orders.E002"
        )]
    if getattr(backend, "charges_nobody", False) and not settings.PAYMENT_ALLOW_TEST_BACKEND:
        return [checks.Error(
            f"PAYMENT_BACKEND is {settings.PAYMENT_BACKEND}, which charges nobody: every order would be "
            "marked paid without any money moving.",
            hint="Set PAYMENT_BACKEND to a real payment provider's backend, or set the environment variable "
            "PAYMENT_ALLOW_TEST_BACKEND=true to run with the test backend on purpose (a demo, a staging site).",
            id="orders.E001",
        )]
    return []


def payment_backend_check(app_configs, **kwargs) -> list[checks.CheckMessage]:
    return payment_backend_problems()


def payment_backend_refuse_unless_allowed() -> None:
    """Raise ImproperlyConfigured (the check's message and hint) when the check above fails."""
    problems = payment_backend_problems()
    if problems:
        raise ImproperlyConfigured(" ".join(f"{p.msg} {p.hint or ''}".strip() for p in problems))
