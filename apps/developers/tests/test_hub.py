"""The developer hub (/developers/), the docs index and the docs pages as the site renders them (issue 16):
they speak to app developers, never in the reference's internal section numbers."""

import re

import pytest
from django.test import Client
from django.utils.html import escape

from apps.developers.docs import PAGES

pytestmark = pytest.mark.django_db


def main_of(response) -> str:
    html = response.content.decode()
    return html[html.index("<main") : html.index("</main>")]


def test_the_hub_says_what_to_build_links_every_guide_and_how_to_get_an_app(owner_client):
    response = Client().get("/developers/")
    assert response.status_code == 200
    main = main_of(response)
    assert "What you can build" in main and "Get an app" in main
    for name in PAGES:
        assert f'href="/developers/docs/{name}"' in main
    assert 'href="/docs/"' in main and 'href="/openapi.json"' in main
    assert "/signup/?next=/developers/apps/new" in main  # a visitor is asked to sign up first
    assert 'href="/developers/apps/new"' in main_of(owner_client.get("/developers/"))


def test_the_docs_index_lists_every_page_with_its_summary():
    main = main_of(Client().get("/developers/docs/"))
    for name, page in PAGES.items():
        assert f'href="/developers/docs/{name}"' in main and escape(page.summary) in main


def test_the_portal_pages_carry_the_hubs_navigation(owner_client, own_app):
    for path in ["/developers/apps/", "/developers/apps/new", f"/developers/apps/{own_app.pk}/"]:
        main = main_of(owner_client.get(path))
        nav = main[main.index('<nav class="dev-nav') : main.index("</nav>")]
        assert 'href="/developers/docs/"' in nav and 'href="/developers/docs/api"' in nav, path
        assert 'href="/docs/"' in nav, path


@pytest.mark.parametrize("page", list(PAGES))
def test_a_docs_page_never_cites_section_numbers_or_the_spec(page):
    response = Client().get(f"/developers/docs/{page}")
    assert response.status_code == 200
    main = main_of(response)
    assert "§" not in main
    # The wire version named `spec` (compatibility: Wire versions) is a name in code, not a citation.
    main = re.sub(r"<code>[^<]*\bspec\b[^<]*</code>", "<code></code>", main)
    assert not re.search(r"\bspec\b", main), re.search(r".{60}\bspec\b.{30}", main)
    # Links to repository files that are not published are plain text; the others point at their pages.
    assert not re.search(r'href="[a-z0-9-]+\.md', main)
    assert "For Thingyard developers" not in main  # the maintainers' notes stay in the repository


def test_section_numbers_become_the_sections_names_and_links():
    api = main_of(Client().get("/developers/docs/api"))
    assert '<h3 id="410-upload-flow">Upload flow</h3>' in api  # the heading reads as its name, its id stays
    assert '<a href="#410-upload-flow">Upload flow</a>' in api
    webhooks = main_of(Client().get("/developers/docs/webhooks"))
    assert '<a href="/developers/docs/api#6-events-webhooks">Events (webhooks)</a>' in webhooks
    # The wire rules are published (part 1 of decisions.md only): links into them resolve.
    assert 'href="/developers/docs/wire-rules#oauth"' in api
    rules = main_of(Client().get("/developers/docs/wire-rules"))
    assert '<h2 id="oauth">OAuth</h2>' in rules and "Project decisions" not in rules


def test_code_blocks_and_tables_get_their_own_scrolling_box():
    main = main_of(Client().get("/developers/docs/getting-started"))
    assert '<div class="table-scroll" tabindex="0"><table>' in main and '<pre tabindex="0"><code' in main
