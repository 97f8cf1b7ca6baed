"""Seed the fault stack's private database (run as a subprocess with the stack's environment).

Prints one JSON line: tokens of a few users of one approved app and the ids of their Things.
"""
import json
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.faults.stack_settings")
django.setup()

from apps.accounts.tests.factories import UserFactory  # noqa: E402
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory  # noqa: E402
from apps.things.tests.factories import ThingFactory  # noqa: E402


def main() -> None:
    app = ApplicationFactory(name="Fault tests")
    users = {name: UserFactory(username=f"faults-{name}") for name in ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")}
    tokens = {name: AccessTokenFactory(user=user, application=app).token for name, user in users.items()}
    thing = ThingFactory(creator=users["alice"], name="Fault tolerant bracket")
    others = ThingFactory.create_batch(4, creator=users["alice"])
    print(json.dumps({
        "tokens": tokens,
        "usernames": {name: user.username for name, user in users.items()},
        "user_ids": {name: user.pk for name, user in users.items()},
        "thing_id": thing.pk,
        "thing_ids": [thing.pk, *(t.pk for t in others)],
    }))


if __name__ == "__main__":
    main()
