import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
django.setup(set_prefix=False)

from apps.core.wsgi import ResolvedOnceWSGIHandler  # noqa: E402  (after setup, as get_wsgi_application)
from apps.orders.checks import payment_backend_refuse_unless_allowed  # noqa: E402

# docs/security.md (issue 22): gunicorn runs no system checks; a backend that charges nobody stops it here.
payment_backend_refuse_unless_allowed()

application = ResolvedOnceWSGIHandler()
