"""The developer hub (/developers/) and its documentation pages (/developers/docs/…), rendered from the
Markdown files in docs/ (one source for the repository and the site).

The repository's files speak to the people who maintain Thingyard as well as to app developers; the
site speaks to app developers only. Rendering therefore:

- drops what is marked for the repository only (`<!-- repo-only -->` … `<!-- /repo-only -->`) and the
  markers of runnable examples (`<!-- example: … -->`, `<!-- not-run: … -->`, see
  apps/developers/tests/test_doc_examples.py);
- turns the reference's section numbers into the sections' names: a heading `§4.10 Upload flow` shows
  as "Upload flow", and a reference `spec §4.10` or `§4.10`, linked or not, as a link named "Upload flow"
  to that section of the API reference page;
- points links between the files at their pages here (`webhooks.md#…` → /developers/docs/webhooks#…),
  and unwraps links to files or sections that are not published (their text stays).
"""

import re
from dataclasses import dataclass
from functools import cache

import markdown
from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe


@dataclass(frozen=True)
class Page:
    title: str
    filename: str
    summary: str
    # Only the part of the file from this top heading (`# …`) to the next one, when set.
    part: str | None = None


# Published pages only, in the order of the hub's navigation: a name here maps to a file under docs/,
# never a path from the request.
PAGES: dict[str, Page] = {
    "getting-started": Page(
        "Getting started",
        "getting-started.md",
        "Register an app, get a token with the authorization-code flow (PKCE for public apps), check it "
        "with tokeninfo, make your first call.",
    ),
    "device-sign-in": Page(
        "Sign in from a device",
        "device-sign-in.md",
        "Slicers, printers and command-line tools: sign in with a code typed at /device (RFC 8628).",
    ),
    "uploads": Page(
        "Uploading files",
        "uploads.md",
        "Upload a file in three steps (descriptor, store, finalize), with curl and Python.",
    ),
    "errors": Page(
        "Errors and rate limits",
        "errors.md",
        "The one error body, what each status means, pagination, and the rate limit's headers.",
    ),
    "webhooks": Page(
        "Webhooks",
        "webhooks.md",
        "Receive signed events, verify them, and understand retries and redelivery.",
    ),
    "thing-apps": Page(
        "Thing apps and the iframe SDK",
        "thing-apps.md",
        "Run your app inside Thing pages and open Thingyard's dialogs with the SDK.",
    ),
    "api": Page(
        "API reference",
        "api.md",
        "Every resource, endpoint, status and limit of the REST API and the OAuth provider.",
    ),
    "wire-rules": Page(
        "Wire rules",
        "decisions.md",
        "The exact names, shapes and statuses on the wire, where the API description leaves them open.",
        part="Part 1: Wire decisions",
    ),
    "compatibility": Page(
        "Compatibility with existing clients",
        "compatibility.md",
        "How clients written for the original API keep working unchanged.",
    ),
}
_REPO_ONLY = re.compile(r"^<!-- repo-only -->\n.*?^<!-- /repo-only -->\n?", re.S | re.M)
_MARKER = re.compile(r"^<!-- (?:example|not-run)\b.*?-->\n", re.M)
_SECTION_HEADING = re.compile(r"^#{2,3} §(\d+(?:\.\d+)*) (.+)$", re.M)
_SECTION_REF = re.compile(r"(?:spec )?§(\d+(?:\.\d+)*)")
_LINK = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.S)
_ID = re.compile(r'\bid="([^"]+)"')
_DOCS_LINK = re.compile(r"^([a-z0-9-]+\.md)?(?:#(.*))?$")


def _read(filename: str) -> str:
    return (settings.BASE_DIR / "docs" / filename).read_text(encoding="utf-8")


def _source(page: Page) -> str:
    """The page's Markdown, cut to its part and without what the site does not show."""
    text = _read(page.filename)
    if page.part:
        start = text.index(f"\n# {page.part}\n")
        end = text.find("\n# ", start + 1)
        text = f"# {page.title}\n" + text[start + len(page.part) + 4 : end if end != -1 else None]
    text = _REPO_ONLY.sub("", text)
    return _MARKER.sub("", text)


def _slug(value: str, separator: str = "-") -> str:
    """GitHub's heading ids, so `api.md#411-iframe-sdk` lands on the same section here."""
    value = re.sub(r"[^\w\- ]", "", value.strip().lower())
    return re.sub(r"\s", separator, value)


@cache
def _sections() -> dict[str, tuple[str, str]]:
    """The reference's section numbers: "4.10" → ("Upload flow", its anchor on the API page)."""
    return {
        number: (title.strip(), _slug(f"§{number} {title}"))
        for number, title in _SECTION_HEADING.findall(_read("api.md"))
    }


@cache
def _anchors(name: str) -> frozenset[str]:
    return frozenset(_ID.findall(_html(name)))


@cache
def _html(name: str) -> str:
    """The page's HTML before its links are resolved (those need every page's anchors)."""
    html = markdown.markdown(
        _source(PAGES[name]),
        extensions=["fenced_code", "tables", "toc"],
        extension_configs={"toc": {"slugify": _slug}},
    )
    html = re.sub(r'<h1 id="[^"]*">', "<h1>", html)
    # A heading `§4.10 Upload flow` reads "Upload flow" (its id, as on GitHub, stays).
    html = re.sub(r'(<h[23] id="[^"]*">)§\d+(?:\.\d+)* ', r"\1", html)
    # Tables scroll inside their box on a narrow screen, like code blocks; both take the keyboard's focus
    # so a keyboard can scroll them (axe: scrollable-region-focusable).
    html = html.replace("<pre>", '<pre tabindex="0">')
    return html.replace("<table>", '<div class="table-scroll" tabindex="0"><table>').replace("</table>", "</table></div>")


@cache
def _render(name: str) -> str:
    html = _LINK.sub(lambda match: _resolve_link(name, match), _html(name))
    # A section number outside a link becomes a link to that section of the reference.
    parts = re.split(r"(<a\b.*?</a>|<pre\b.*?</pre>|<code>.*?</code>)", html, flags=re.S)
    for index in range(0, len(parts), 2):
        parts[index] = _SECTION_REF.sub(lambda match: _section_link(match.group(1)), parts[index])
        # "(reliability.md)" once its link to an unpublished file is unwrapped: nothing left to follow.
        parts[index] = re.sub(r" \([a-z0-9-]+\.md\)", "", parts[index])
    return "".join(parts)


def _section_link(number: str) -> str:
    section = _sections().get(number)
    if section is None:
        return f"section {number}"
    title, anchor = section
    return f'<a href="/developers/docs/api#{anchor}">{escape(title)}</a>'


def _resolve_link(name: str, match: re.Match) -> str:
    href, text = match.group(1), match.group(2)
    reference = _SECTION_REF.fullmatch(text.strip())
    if reference and reference.group(1) in _sections():
        text = escape(_sections()[reference.group(1)][0])
    target = _DOCS_LINK.match(href)
    if target is None:  # another site, an absolute path on this one
        return f'<a href="{href}">{text}</a>'
    filename, anchor = target.group(1), target.group(2)
    # Within the page, or another published page.
    target_name = name if filename is None else _published_name(filename, anchor)
    if target_name is None:
        return text
    if anchor and anchor not in _anchors(target_name):
        return text
    if text == filename:  # a link named by its file reads as the page's title
        text = escape(PAGES[target_name].title)
    url = "" if target_name == name else f"/developers/docs/{target_name}"
    return f'<a href="{url}{"#" + anchor if anchor else ""}">{text}</a>'


def _published_name(filename: str, anchor: str | None) -> str | None:
    """The page a link to `filename#anchor` lands on, if it is published."""
    for name, page in PAGES.items():
        if page.filename == filename and (anchor is None or anchor in _anchors(name) or not page.part):
            return name
    return None


@require_safe
def hub(request):
    """GET /developers/: the developer hub's landing page."""
    context = {
        "pages": PAGES,
        "api_base": settings.API_BASE_URL.rstrip("/"),
        "user_limit": settings.UNAPPROVED_APP_USER_LIMIT,
    }
    return render(request, "developers/hub.html", context)


@require_safe
def docs_index(request):
    """GET /developers/docs/: every guide and reference page."""
    return render(request, "developers/docs_index.html", {"pages": PAGES})


@require_safe
def docs_page(request, page: str):
    if page not in PAGES:
        raise Http404
    return render(
        request,
        "developers/docs_page.html",
        {"title": PAGES[page].title, "page": page, "pages": PAGES, "body": mark_safe(_render(page))},
    )
