"""Call the main API endpoints with the demo token and fail loudly on any unexpected status.

Used by the quick-start test (apps/demo/tests/test_quickstart.py) against the SQLite settings of
`make run`, which the PostgreSQL test suite cannot cover: `python manage.py smoke_api` after seed_demo.
"""
from django.core.management.base import BaseCommand, CommandError
from django.test import Client

from apps.demo.services import demo_seed

# (method, path, body, expected status). {thing} is the newest demo Thing's id.
CHECKS = [
    ("get", "/users/me", None, 200),
    ("get", "/users/me/", None, 200),
    ("patch", "/users/me", {"bio": "Quick start"}, 200),
    ("get", "/newest/", None, 200),
    ("get", "/popular/", None, 200),
    ("get", "/featured/", None, 200),
    ("get", "/things/{thing}", None, 200),
    ("get", "/things/{thing}/tags", None, 200),
    ("post", "/things/", {"name": "Smoke hook", "category": "Replacement Parts", "tags": ["wall hook"]}, 200),
    ("get", "/categories/", None, 200),
    ("get", "/categories/replacement-parts/things", None, 200),
    ("get", "/tags/", None, 200),
    ("get", "/search/robot/", None, 200),
    ("get", "/search/zzzznothing/", None, 404),
    ("get", "/search/ro/autocomplete", None, 200),
    ("get", "/users/demo/things", None, 200),
    ("get", "/thing:{thing}", None, 200),
    ("get", "/no/such/path", None, 404),
]


class Command(BaseCommand):
    help = "Smoke-test the main API endpoints with the demo token (quick start)."

    def handle(self, *args, **options):
        summary = demo_seed()
        client = Client(HTTP_AUTHORIZATION=f"Bearer {summary.token}")
        newest = client.get("/newest/", {"per_page": 1})
        if newest.status_code != 200 or not newest.json():
            raise CommandError(f"/newest/ answered {newest.status_code}: {newest.content[:200]!r}")
        thing_id = newest.json()[0]["id"]
        failures = []
        for method, path, body, expected in CHECKS:
            path = path.format(thing=thing_id)
            kwargs = {"data": body, "content_type": "application/json"} if body is not None else {}
            response = getattr(client, method)(path, **kwargs)
            if response.status_code != expected:
                failures.append(f"{method.upper()} {path}: {response.status_code} (expected {expected})")
        if failures:
            raise CommandError("; ".join(failures))
        self.stdout.write(f"smoke_api: {len(CHECKS)} checks passed")
