"""Shared fixtures of the end-to-end tests (a pytest plugin, loaded by the root conftest.py): Debian's
Chromium driven by Playwright, the site on pytest-django's live server (http://localhost:<port>), moto's
S3 server as the object store the browser posts to and reads from.

Without Chromium (or Playwright) the tests skip locally, saying why; under CI (CI=true) they fail.
WebGL: headless Chromium draws the three.js preview with SwiftShader, its software GL (CHROMIUM_ARGS).
"""

import importlib.util
import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
SCREENSHOTS = os.environ.get("THINGYARD_SCREENSHOTS", "") not in ("", "0")
SCREENSHOT_DIR = Path(settings.BASE_DIR) / "docs" / "img"
# SwiftShader gives headless Chromium a software WebGL: the Thing page's 3D preview really draws.
# The page itself is composited by Chromium's software compositor, not through SwiftShader's emulated GPU
# (--disable-gpu-compositing; WebGL canvases still draw with SwiftShader): the same pages and the same
# drawn preview for about half the browser's CPU (issue 23; measured: 14.5 → 7.8 CPU-s for the developer
# portal's tests, 24.8 → 13.1 for the 3D site flows).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--ignore-gpu-blocklist",
    "--disable-gpu-compositing",
]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: end-to-end tests in headless Chromium (Playwright); need /usr/bin/chromium"
    )


def _missing_browser() -> str | None:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture
def categories(transactional_db):
    """The seeded category tree (migration things.0002): an earlier transactional test's flush may
    have emptied the table, and `serialized_rollback` cannot restore it once a flush has re-created
    the content types under new ids."""
    import importlib

    from django.apps import apps

    importlib.import_module("apps.things.migrations.0002_seed_categories").seed(apps, None)


@pytest.fixture
def chromium(transactional_db):
    """One browser per test, started after the test database is ready and closed before it is flushed.

    Playwright's sync API runs an event loop in this thread, and Django keeps its connections per
    asyncio context: inside the loop `connections["default"]` is another wrapper (another connection).
    Keeping the browser inside the test's database lifetime lets the test runner's setup and flush use
    its own connection, and the loop's connections are closed with the browser.
    """
    reason = _missing_browser()
    if reason:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI runs the browser tests: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; Django would take the test's own
    # database calls for async code. They are synchronous: say so while the browser runs.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                yield browser
            finally:
                browser.close()
                # The connections the test body opened in the loop's context, which ends here.
                connections.close_all()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def site_urls(settings, live_server):
    """{site_url} and {base_url} are the live server, so links and thumbnails in pages resolve."""
    from apps.accounts import links as account_links
    from apps.things import links as thing_links
    from apps.uploads import links as upload_links

    caches = (
        thing_links._placeholder_url,
        upload_links.placeholder_thumbnail_url,
        account_links._default_avatar_url,
    )
    settings.SITE_URL = settings.API_BASE_URL = settings.AUTH_BASE_URL = live_server.url
    for cached in caches:
        cached.cache_clear()
    yield live_server.url
    for cached in caches:
        cached.cache_clear()


@pytest.fixture
def signed_in(chromium, live_server, site_urls):
    """signed_in(user) → a Playwright page whose browser session is `user`'s."""
    from django.test import Client

    contexts = []

    def make(user, *, viewport=None):
        client = Client()
        client.force_login(user)
        context = chromium.new_context(viewport=viewport or {"width": 1100, "height": 820})
        context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": live_server.url,
                }
            ]
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)  # a loaded CI machine; a passing run never waits that long
        return page

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def visitor(chromium, site_urls):
    """visitor(viewport=None) → a Playwright page of a browser nobody is signed in to."""
    contexts = []

    def make(*, viewport=None):
        context = chromium.new_context(viewport=viewport or {"width": 1100, "height": 820})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)  # a loaded CI machine; a passing run never waits that long
        return page

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot():
    """screenshot(page, name): docs/img/<name>.png, only when THINGYARD_SCREENSHOTS is set
    (`make screenshots`), so a test run never rewrites the committed images."""

    def take(page, name: str, *, full_page: bool = False):
        if SCREENSHOTS:
            SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
            if full_page:  # from the top: the sticky header would otherwise sit where the page was scrolled
                page.evaluate("() => window.scrollTo(0, 0)")
            page.screenshot(path=str(SCREENSHOT_DIR / f"{name}.png"), full_page=full_page)

    return take
