"""A comment's body as HTML: Markdown rendered, then sanitised with an allow-list (nh3).

Rendered once, when the comment is written, and stored as `body_html`: reads never pay for it, and the
allow-list in force at write time is the one that applied. Raw HTML inside the Markdown passes through
Markdown untouched, so everything the sanitiser does not allow is dropped here: scripts and styles with
their content, event-handler attributes, images (no tracking pixels in comments), and every link that is
not an absolute http, https or mailto URL. Links get rel="nofollow noopener" (no SEO from comment spam).
"""
from apps.core.domain.markup import LINK_REL, TEXT_TAGS, URL_SCHEMES, markdown_render  # noqa: F401

ALLOWED_TAGS = TEXT_TAGS
MARKDOWN_EXTENSIONS = ("fenced_code", "sane_lists", "nl2br")


def comment_body_render(body: str) -> str:
    """The safe HTML of a Markdown comment body ("" for an empty body)."""
    return markdown_render(body, tags=ALLOWED_TAGS, extensions=MARKDOWN_EXTENSIONS)
