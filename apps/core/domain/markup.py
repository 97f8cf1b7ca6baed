"""Markdown to safe HTML: one renderer (Python-Markdown) and one sanitiser (nh3 with an allow-list).

Raw HTML inside the Markdown passes through Markdown untouched, so everything the allow-list does not name
is dropped by the sanitiser: scripts and styles with their content, event-handler attributes, images,
iframes and forms, and every link that is not an absolute http, https or mailto URL. Links get
rel="nofollow noopener". Callers choose the tags (comments: text formatting; Thing descriptions: the same
plus tables).
"""

import functools
import hashlib

import markdown
import nh3
from django.core.cache import cache

TEXT_TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "code",
        "del",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "li",
        "ol",
        "p",
        "pre",
        "s",
        "strong",
        "sub",
        "sup",
        "ul",
    }
)
TABLE_TAGS = frozenset({"table", "thead", "tbody", "tr", "th", "td"})
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "nofollow noopener"
EXTENSIONS = ("fenced_code", "sane_lists", "nl2br")
# A rendered text is kept this long under the hash of its source (a Thing page renders two per view).
CACHE_SECONDS = 24 * 3600


def markdown_render(text: str, *, tags=TEXT_TAGS, extensions=EXTENSIONS) -> str:
    """The safe HTML of Markdown `text` ("" for an empty text)."""
    if not text:
        return ""
    html = markdown.markdown(text, extensions=list(extensions), output_format="html")
    return nh3.clean(
        html,
        tags=set(tags),
        clean_content_tags={"script", "style"},
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items() if tag in tags},
        url_schemes=set(URL_SCHEMES),
        # A relative link would resolve against whichever page shows the text: never meant.
        url_relative="deny",
        link_rel=LINK_REL,
        strip_comments=True,
    )


# Bump when the documents' HTML for the same source changes (the renderer, its tags, its extensions): every
# stored rendering (`documents_key`) then stops matching and is rendered again on read until rewritten.
DOCUMENT_RENDERING = 1


def documents_key(*texts: str) -> str:
    """What a stored rendering of these documents was made from: this code's rendering and the sources.
    A stored HTML is used only while its key equals the key of the row's current texts, so a text
    changed by any path (a service, the admin, QuerySet.update(), SQL) is never shown with old HTML."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(str(DOCUMENT_RENDERING).encode())
    for text in texts:
        digest.update(b"\0" + (text or "").encode())
    return digest.hexdigest()


def document_render(text: str) -> str:
    """A long document (a Thing's description or instructions): text formatting and tables, cached under
    the hash of its source, so a page view costs a cache read rather than a render.

    The HTML is a pure function of the source (and of this code), so the process also keeps the most
    recent ones (issue 24, a fast first read: a Thing's body renders its description and instructions
    twice each, and every Redis read was a round trip); Redis shares renders between processes."""
    if not text:
        return ""
    return _document_memo(text)


def document_render_fresh(text: str) -> str:
    """document_render without its caches: what a stored rendering is made of (apps.things.models)."""
    return markdown_render(text, tags=TEXT_TAGS | TABLE_TAGS, extensions=(*EXTENSIONS, "tables"))


@functools.lru_cache(maxsize=2048)
def _document_memo(text: str) -> str:
    key = "markup:doc:" + hashlib.sha256(text.encode()).hexdigest()
    html = cache.get(key)
    if html is None:
        html = document_render_fresh(text)
        cache.set(key, html, CACHE_SECONDS)
    return html


def detail_parts(*sections: tuple[str, str, str]) -> list[dict]:
    """A page's sections as the live service's `details_parts` listed them: each `(type, name, html)` as
    `{"type", "name", "data": [{"content": html}]}`, in order (a Thing's, a copy's)."""
    return [{"type": kind, "name": name, "data": [{"content": html}]} for kind, name, html in sections]


def details_html(parts: list[dict]) -> str:
    """`details`: the sections of `detail_parts` as one HTML string, each under its heading."""
    return "".join(
        f'<div class="thing-section" data-section="{part["type"]}"><h2>{part["name"]}</h2>'
        f'{part["data"][0]["content"]}</div>'
        for part in parts
    )
