import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
django.setup(set_prefix=False)

from apps.core.wsgi import ResolvedOnceWSGIHandler  # noqa: E402  (after setup, as get_wsgi_application)

application = ResolvedOnceWSGIHandler()
