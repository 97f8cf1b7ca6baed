"""Schemathesis hooks of `make fuzz` (loaded through SCHEMATHESIS_HOOKS=tests.contract.fuzz_hooks).

Schemathesis joins the base URL and an operation's path with `urljoin`, which drops an empty path
segment: the term-less `/search//library` (spec §4.7 "term optional"; apps/search/urls.py) would go out
as `/search/library`, a search *for the word* "library", and the operation under test would never be
called. The same join is its model of where a case was sent, which its checks compare the response's
request URL against. So the request goes out as the document writes the path, and once it is back the
response's request URL is put back in Schemathesis's form, for its checks to compare like with like.
Only paths without parameters have the form (`/search//library`, `//tag`, `//autocomplete`).
"""
import re
from urllib.parse import urlsplit, urlunsplit

import schemathesis


def _empty_segment(case) -> bool:
    return "//" in case.path and not case.path_parameters


@schemathesis.hook
def before_call(context, case, kwargs):
    if _empty_segment(case):
        kwargs["url"] = case.operation.base_url.rstrip("/") + case.path


@schemathesis.hook
def after_call(context, case, response):
    if _empty_segment(case):
        parts = urlsplit(response.request.url)
        response.request.url = urlunsplit(parts._replace(path=re.sub("/{2,}", "/", parts.path)))
