from django.core.management import call_command


def test_seed_demo_creates_a_token_that_authenticates_the_demo_user(db, anon_client, s3):
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    from apps.demo.services import demo_seed

    summary = demo_seed()  # idempotent: same token again
    assert len(summary.token) == 32
    response = anon_client.get("/users/me", HTTP_AUTHORIZATION=f"Bearer {summary.token}")
    assert response.status_code == 200
    assert response.json()["name"] == "demo"


def test_seed_demo_is_idempotent(db, s3):
    from apps.demo.services import demo_seed

    first = demo_seed()
    second = demo_seed()
    assert first.token == second.token
