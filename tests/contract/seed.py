"""The fuzz database's content: the demo data, plus one of every object for two users (tests/world.py).

Run by the fuzz harness as `python -m tests.contract.seed` with its settings; prints JSON with the demo
user's token and, for each path parameter name of the OpenAPI document, the values that name real
objects. Schemathesis mixes those values with generated ones (a dictionary per parameter), so the run
reaches the handlers' logic instead of answering 404 to random ids.

The database is created fresh by each run, so the ids are the same every time (deterministic runs).
"""
import json


def fuzz_seed() -> dict:
    import factory.random
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from oauth2_provider.models import get_application_model

    from apps.demo.services import DEMO_APP_CLIENT_ID, demo_seed
    from tests.world import world_build

    factory.random.reseed_random(20261120)  # factory_boy's Faker values, the same every run
    # Nothing cached by an earlier run (list counts, CORS origins, rate-limit windows) may leak into this
    # one: the cache's Redis database is the fuzz server's own (as the test suite clears it per test).
    cache.clear()
    summary = demo_seed()
    users = get_user_model().objects
    app = get_application_model().objects.get(client_id=DEMO_APP_CLIENT_ID)
    worlds = [world_build(owner=users.get(username=name), app=app) for name in ("demo", "alice")]
    values: dict[str, list] = {}
    for world in worlds:
        for name, value in world.path_values().items():
            values.setdefault(name, []).append(value)
        values["thing_id"].append(world.draft.pk)
    values["username"] += ["me", "bob"]
    values["term"] = ["robot", "bracket", "parametric shelf"]
    values["tag"] = ["parametric", "Robot_Arm", "calibration"]
    values["slug"] = ["robotics", "replacement-parts", "3d-printing-tests"]
    values["all"] = ["true", "false"]
    return {"token": summary.token, "path_values": values}


if __name__ == "__main__":
    import django

    django.setup()
    print(json.dumps(fuzz_seed()))
