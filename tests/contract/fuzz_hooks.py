"""Schemathesis hooks of `make fuzz` (loaded through SCHEMATHESIS_HOOKS=tests.contract.fuzz_hooks).

Schemathesis joins the base URL and an operation's path with `urljoin`, which drops an empty path
segment: the term-less `/search//library` (spec §4.7 "term optional"; apps/search/urls.py) would go out
as `/search/library`, a search *for the word* "library", and the operation under test would never be
called. The same join is its model of where a case was sent, which its checks compare the response's
request URL against. So the request goes out as the document writes the path, and once it is back the
response's request URL is put back in Schemathesis's form, for its checks to compare like with like.
Only paths without parameters have the form (`/search//library`, `//tag`, `//autocomplete`).

A body of nothing but JSON's whitespace (space, tab, line feed, carriage return) is an empty body by
decision (docs/decisions.md, "Requests": whitespace around JSON is JSON's own): a PATCH with it changes
nothing and answers 200, which the negative run's check would call invalid data accepted. Those cases
are not generated (`filter_case`); a body with any other byte (a form feed, say) still is, and is refused.
"""
import ast
import re
import threading
from urllib.parse import urlsplit, urlunsplit

import schemathesis

# The default run tests several operations at once in threads (tests/contract/fuzz.py WORKERS), and
# Hypothesis parses source code (ast.parse) to describe the lambdas of a strategy's filters. On CPython
# 3.11 two threads building ASTs at once corrupt the parser's shared recursion counter ("SystemError: AST
# constructor recursion depth mismatch", CPython gh-106905), which Schemathesis reports as a runtime
# error of the operation: so one parse at a time.
_AST_LOCK = threading.Lock()
_ast_parse = ast.parse


def _parse_one_at_a_time(*args, **kwargs):
    with _AST_LOCK:
        return _ast_parse(*args, **kwargs)


ast.parse = _parse_one_at_a_time


def _empty_segment(case) -> bool:
    return "//" in case.path and not case.path_parameters


_JSON_WHITESPACE = " \t\n\r"


def json_whitespace_only(body) -> bool:
    """A generated body of nothing but JSON's whitespace (and at least one byte of it)."""
    if isinstance(body, bytes):
        body = body.decode("latin-1")
    return isinstance(body, str) and body != "" and body.strip(_JSON_WHITESPACE) == ""


@schemathesis.hook
def filter_case(context, case) -> bool:
    return not json_whitespace_only(getattr(case, "body", None))


@schemathesis.hook
def before_call(context, case, kwargs):
    if _empty_segment(case):
        kwargs["url"] = case.operation.base_url.rstrip("/") + case.path


@schemathesis.hook
def after_call(context, case, response):
    if _empty_segment(case):
        parts = urlsplit(response.request.url)
        response.request.url = urlunsplit(parts._replace(path=re.sub("/{2,}", "/", parts.path)))
