"""Developer documentation pages, rendered from the Markdown files in docs/ (one source for the repo
and the site)."""
import re
from functools import cache

import markdown
from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.utils.safestring import mark_safe

# Published pages only: a name here maps to a file under docs/, never a path from the request.
PAGES = {
    "api": ("API reference", "api.md"),
    "compatibility": ("Compatibility with existing clients", "compatibility.md"),
    "webhooks": ("Webhooks", "webhooks.md"),
    "thing-apps": ("Thing apps and the iframe SDK", "thing-apps.md"),
}
_PAGE_BY_FILE = {filename: name for name, (_, filename) in PAGES.items()}
# A link between the Markdown files (`thing-apps.md#…`), as the repository shows them.
_MD_LINK = re.compile(r'href="([a-z0-9-]+\.md)(#[^"]*)?"')


@cache
def _render(filename: str) -> str:
    text = (settings.BASE_DIR / "docs" / filename).read_text(encoding="utf-8")
    # Headings get the ids GitHub gives them, so `api.md#411-iframe-sdk` lands on the section here too
    # (the page's title needs none).
    html = markdown.markdown(text, extensions=["fenced_code", "tables", "toc"])
    html = re.sub(r'<h1 id="[^"]*">', "<h1>", html)
    return _MD_LINK.sub(_site_link, html)


def _site_link(match) -> str:
    """A link to another published file points at its page here; any other is left as written."""
    name = _PAGE_BY_FILE.get(match.group(1))
    if name is None:
        return match.group(0)
    return f'href="/developers/docs/{name}{match.group(2) or ""}"'


def docs_page(request, page: str):
    if page not in PAGES:
        raise Http404
    title, filename = PAGES[page]
    return render(request, "developers/docs_page.html", {"title": title, "body": mark_safe(_render(filename))})
