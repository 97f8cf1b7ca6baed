"""A comment's body as HTML: Markdown rendered, then sanitised with an allow-list (nh3).

Rendered once, when the comment is written, and stored as `body_html`: reads never pay for it, and the
allow-list in force at write time is the one that applied. Raw HTML inside the Markdown passes through
Markdown untouched, so everything the sanitiser does not allow is dropped here: scripts and styles with
their content, event-handler attributes, images (no tracking pixels in comments), and every link that is
not an absolute http, https or mailto URL. Links get rel="nofollow noopener" (no SEO from comment spam).
"""
import markdown
import nh3

ALLOWED_TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "i", "li", "ol", "p", "pre", "s", "strong", "sub", "sup", "ul",
})
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "ol": {"start"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "nofollow noopener"
MARKDOWN_EXTENSIONS = ("fenced_code", "sane_lists", "nl2br")


def comment_body_render(body: str) -> str:
    """The safe HTML of a Markdown comment body ("" for an empty body)."""
    if not body:
        return ""
    html = markdown.markdown(body, extensions=list(MARKDOWN_EXTENSIONS), output_format="html")
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags={"script", "style"},
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        # A relative link would resolve against whichever site shows the comment: never meant.
        url_relative="deny",
        link_rel=LINK_REL,
        strip_comments=True,
    )
