"""Markdown bodies rendered to safe HTML (markup.comment_body_render)."""
import pytest

from apps.comments.markup import comment_body_render


def test_markdown_is_rendered():
    html = comment_body_render("**bold** and *it*\n\n- one\n- two\n\n`code`")
    assert "<strong>bold</strong>" in html and "<em>it</em>" in html
    assert "<li>one</li>" in html and "<code>code</code>" in html


def test_a_single_newline_is_a_line_break():
    assert comment_body_render("first\nsecond") == "<p>first<br>\nsecond</p>"


def test_script_tags_go_with_their_content():
    html = comment_body_render("hi <script>alert(1)</script> there <style>p{}</style>")
    assert "script" not in html and "alert" not in html and "style" not in html
    assert "hi" in html and "there" in html


@pytest.mark.parametrize("raw", [
    '<img src="x" onerror="alert(1)">',
    '<a href="https://ok.example" onclick="alert(1)">x</a>',
    '<p onmouseover="alert(1)">x</p>',
])
def test_event_handler_attributes_are_removed(raw):
    html = comment_body_render(raw)
    assert "onerror" not in html and "onclick" not in html and "onmouseover" not in html
    assert "alert" not in html


@pytest.mark.parametrize("raw", [
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>',
    '<a href="vbscript:msgbox(1)">x</a>',
    "[x](/relative/path)",
])
def test_only_absolute_http_https_and_mailto_links_survive(raw):
    html = comment_body_render(raw)
    assert "href" not in html
    assert "javascript" not in html.lower() and "data:" not in html


def test_links_get_nofollow_noopener():
    html = comment_body_render("[site](https://example.com/a?b=1&c=2) <mailto:me@example.com>")
    assert '<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener">site</a>' in html
    assert 'href="mailto:me@example.com"' in html


def test_a_rel_given_in_the_body_is_replaced():
    html = comment_body_render('<a href="https://example.com" rel="author">x</a>')
    assert html.count("rel=") == 1 and 'rel="nofollow noopener"' in html


def test_images_iframes_and_forms_are_not_allowed():
    html = comment_body_render('![pic](https://example.com/a.png) <iframe src="https://e.com"></iframe>'
                               '<form><input name="x"></form>')
    assert "<img" not in html and "<iframe" not in html and "<form" not in html and "<input" not in html


def test_code_blocks_escape_html():
    html = comment_body_render("```\n<script>alert(1)</script>\n```")
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_an_empty_body_renders_empty():
    assert comment_body_render("") == ""
