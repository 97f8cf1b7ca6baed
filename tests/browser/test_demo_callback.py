"""Issue 23: "Allow" on the quick start's demo app lands on its callback page, whose script trades the
code for a token and shows GET /users/me answered with it (apps/demo/pages.py, static/site/demo-callback.js)."""
from django.contrib.auth import get_user_model


def test_allow_on_the_demo_app_shows_the_token_working(signed_in, site_urls):
    from apps.demo.services import demo_authorize_url, demo_callback_url, demo_seed

    demo_seed()  # the demo app's callback URL is the live server's (site_urls)
    page = signed_in(get_user_model().objects.get(username="demo"))
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(demo_authorize_url())
    page.get_by_role("button", name="Allow").click()
    page.wait_for_selector('[data-step="me"][data-state="done"]')
    assert page.url.split("?")[0] == demo_callback_url()
    assert "you are demo" in page.inner_text('[data-step="me"]')
    assert '"name": "demo"' in page.inner_text("[data-result]")
    assert errors == []
