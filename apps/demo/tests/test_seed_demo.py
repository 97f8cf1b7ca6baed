"""demo_seed() on a fresh database: users, the demo app, Things, comments, the token. The command as a whole
(`seed_demo`: photos and models too) is test_seed_demo_showcase.py's, on one seeded database per module."""
from django.contrib.auth import get_user_model


def test_seed_demo_is_idempotent(db, s3):
    from apps.demo.services import demo_seed

    first = demo_seed()
    second = demo_seed()
    assert first.token == second.token


def test_seed_demo_creates_demo_things_visible_through_the_api(db, s3, client_for):
    from apps.demo.services import DEMO_THINGS, demo_seed
    from apps.things.models import Remix, Thing

    demo_seed()
    demo_seed()  # idempotent: no duplicates, counters unchanged
    assert Thing.objects.count() == len(DEMO_THINGS)
    arm = Thing.objects.get(name="Articulated Robot Arm")
    assert arm.like_count == 2 and arm.is_featured
    assert Remix.objects.filter(derivative__name="Robot Arm Gripper", ancestor=arm).exists()

    visitor = client_for(get_user_model().objects.get(username="alice"))
    detail = visitor.get(f"/things/{arm.pk}")
    assert detail.status_code == 200
    assert detail.json()["name"] == "Articulated Robot Arm" and detail.json()["like_count"] == 2
    draft = Thing.objects.get(name="Desk Cable Organizer")
    assert visitor.get(f"/things/{draft.pk}").status_code == 403  # bob's draft (spec §7)
    newest = visitor.get("/newest/", {"per_page": 100}).json()
    assert {t["name"] for t in newest} == {name for _, name, _, _, published, _ in DEMO_THINGS if published}
    assert [t["name"] for t in visitor.get("/tags/robot arm/things").json()] == [
        "Robot Arm Gripper",
        "Articulated Robot Arm",
    ]
    assert visitor.get("/categories/hobby/").json()["count"] == 2
    assert [t["name"] for t in visitor.get("/featured/").json()] == ["Articulated Robot Arm"]


def test_seed_demo_adds_a_threaded_discussion_once(db, s3, client_for):
    from django.contrib.auth import get_user_model

    from apps.comments.models import Comment
    from apps.demo.services import demo_seed
    from apps.things.models import Thing

    demo_seed()
    demo_seed()  # idempotent: the discussion is not written twice
    thing = Thing.objects.get(name="Parametric Shelf Bracket")
    assert Comment.objects.filter(thing=thing).count() == 3
    thing.refresh_from_db()
    assert thing.comment_count == 3
    client = client_for(get_user_model().objects.get(username="demo"))
    threaded = client.get(f"/things/{thing.pk}/threaded-comments").json()
    (root,) = threaded["threads"][""]
    assert "<strong>Solid</strong>" in root["body_html"]
    assert len(threaded["threads"][str(root["id"])]) == 2


def test_seed_demo_registers_the_approved_example_thing_app(db, s3):
    from oauth2_provider.models import get_application_model

    from apps.demo.services import DEMO_THING_APP_CLIENT_ID, DEMO_THING_APP_URL, demo_seed
    from apps.thingapps.rules import thing_app_is_listed

    demo_seed()
    app = get_application_model().objects.get(client_id=DEMO_THING_APP_CLIENT_ID)
    assert app.application_url == DEMO_THING_APP_URL
    assert thing_app_is_listed(
        app_type=app.app_type, approval_state=app.approval_state, application_url=app.application_url
    )
