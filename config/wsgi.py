import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
django.setup(set_prefix=False)

from django.core import checks  # noqa: E402
from django.core.exceptions import ImproperlyConfigured  # noqa: E402

from apps.core.pipeline.wsgi import ResolvedOnceWSGIHandler  # noqa: E402  (after setup, as get_wsgi_application)

# gunicorn runs no system checks: those tagged "startup" (a payment backend that charges nobody, in
# production: apps.orders.checks; docs/security.md, issue 22) stop the web process here.
_refused = [message for message in checks.run_checks(tags=["startup"]) if message.is_serious()]
if _refused:
    raise ImproperlyConfigured(" ".join(f"{m.id}: {m.msg} {m.hint or ''}".strip() for m in _refused))

application = ResolvedOnceWSGIHandler()
