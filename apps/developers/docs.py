"""Developer documentation pages, rendered from the Markdown files in docs/ (one source for the repo
and the site)."""
from functools import cache

import markdown
from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.utils.safestring import mark_safe

# Published pages only: a name here maps to a file under docs/, never a path from the request.
PAGES = {
    "webhooks": ("Webhooks", "webhooks.md"),
    "thing-apps": ("Thing apps and the iframe SDK", "thing-apps.md"),
}


@cache
def _render(filename: str) -> str:
    text = (settings.BASE_DIR / "docs" / filename).read_text(encoding="utf-8")
    return markdown.markdown(text, extensions=["fenced_code", "tables"])


def docs_page(request, page: str):
    if page not in PAGES:
        raise Http404
    title, filename = PAGES[page]
    return render(request, "developers/docs_page.html", {"title": title, "body": mark_safe(_render(filename))})
