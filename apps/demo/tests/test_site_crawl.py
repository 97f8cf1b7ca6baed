"""Every link the site shows leads somewhere (issue 23's site, checked as a whole).

On the demo's seeded database, a crawler follows every same-site link and form of the pages it can reach
from the home page, as a visitor, as a signed-in maker and as a moderator (the admin's pages included),
and checks what a person clicking through would: no page fails (5xx), no link the site prints leads to a
"not found" or a refusal, and every page of the site is HTML with one `<main>` and one `<h1>`. A redirect
to another host (a download's signed URL on the object store) is not followed; nor are the admin's
filter and sorting links (each combination of them is a link: the admin's own code, tested by Django).
"""
import os
import re
from collections import Counter, deque
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import Resolver404, resolve

from apps.demo.services import DEMO_PASSWORD

# One seeded database for the module's tests, on one xdist worker (conftest.py: demo_seeded); a group of its
# own, so it runs beside the other seeded modules' group rather than after them.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("site-crawl")]

# Bound on pages a crawl visits: a loop of generated links would otherwise never end.
MAX_PAGES = int(os.environ.get("SITE_CRAWL_MAX_PAGES", "1500"))
# Pages of one kind (one URL pattern) visited at most: each of the demo's Things, makes, comments, tags and
# users is visited (fewer than this), but not every one of 80 categories, 80 filter combinations of the search
# page, or the sign-in page once for each page it would come back to (`?next=`). Links that resolve to no
# pattern are always followed: they are what the crawl is looking for.
PER_PATTERN = int(os.environ.get("SITE_CRAWL_PER_PATTERN", "20"))
# Paths that end the crawler's own session or are not pages.
_SKIPPED = re.compile(r"^/(accounts/logout|logout|static/|media/|admin/logout|admin/jsi18n)")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.mains = 0
        self.h1s = 0
        self.posts: list[tuple[str, list[str]]] = []  # (action, field names) of each form sent by POST

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and (attrs.get("method") or "").lower() == "post":
            self.posts.append((attrs.get("action") or "", []))
        elif tag in ("input", "textarea", "select") and attrs.get("name") and self.posts:
            self.posts[-1][1].append(attrs["name"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        elif tag == "form" and (attrs.get("method") or "get").lower() == "get" and attrs.get("action"):
            self.links.append(attrs["action"])
        elif tag == "main":
            self.mains += 1
        elif tag == "h1":
            self.h1s += 1


def crawl(client: Client, start: str = "/", forms: dict | None = None) -> tuple[dict[str, int], list[str]]:
    """(path → status of every page visited, problems found). `forms`, when given, receives each form
    sent by POST: its address → its fields' names."""
    seen: dict[str, int] = {}
    problems: list[str] = []
    queue = deque([(start, "(start)")])
    queued: set[str] = {start}
    per_pattern: Counter = Counter()
    while queue and len(seen) < MAX_PAGES:
        path, referrer = queue.popleft()
        if path in seen:
            continue
        response = client.get(path)
        seen[path] = response.status_code
        if response.status_code in (301, 302, 303, 307, 308):
            # A redirect within the site is one more link; one to another host (the object store's signed
            # URL of a download) is that host's to answer.
            target = urlsplit(urljoin("http://testserver" + path, response["Location"]))
            if target.netloc in ("testserver", "") and not _SKIPPED.match(target.path):
                queue.appendleft((_local(target), path))
            continue
        if not 200 <= response.status_code < 300:
            # 202 is a page too: "preparing your download" while the package ZIP is built.
            problems.append(f"{path} (linked from {referrer}): {response.status_code}")
            continue
        if not response.get("Content-Type", "").startswith("text/html"):
            continue
        parser = _Links()
        parser.feed(response.content.decode())
        final = urlsplit(path).path
        if not final.startswith("/admin/") and (parser.mains != 1 or parser.h1s != 1):
            problems.append(f"{path}: {parser.mains} <main>, {parser.h1s} <h1>")
        if forms is not None:
            for action, fields in parser.posts:
                target = urlsplit(urljoin("http://testserver" + final, action or final))
                forms.setdefault(_local(target), fields)
        for href in parser.links:
            target = urlsplit(urljoin("http://testserver" + final, href))
            if target.scheme not in ("http", "https") or target.netloc not in ("testserver", ""):
                continue
            if _SKIPPED.match(target.path):
                continue
            if target.query and target.path.startswith("/admin/"):
                continue  # the admin's filters and sorting: every combination of them is a link
            link = _local(target)
            if link in queued:
                continue
            pattern = _pattern(target.path)
            if pattern is not None:
                if per_pattern[pattern] >= PER_PATTERN:
                    continue
                per_pattern[pattern] += 1
            queued.add(link)
            queue.append((link, path))
    return seen, problems


def _local(url) -> str:
    """A split URL of the site as the crawler requests it: its path and query."""
    return url.path + (f"?{url.query}" if url.query else "")


def _pattern(path: str) -> str | None:
    """The URL pattern that answers `path` (with or without its trailing slash, as the site answers
    both), or None."""
    for candidate in (path, path[:-1] if path.endswith("/") else path + "/"):
        try:
            match = resolve(candidate)
        except Resolver404:
            continue
        return match.route
    return None


def _moderator():
    return get_user_model().objects.create_superuser("crawl-moderator", "mod@example.com", "pw-crawl-1")


@pytest.fixture
def seeded(demo_seeded, s3):
    """`seed_demo` has run (twice) on this module's database."""


def test_a_visitor_meets_no_broken_link(seeded):
    seen, problems = crawl(Client())
    assert len(seen) > 20
    assert problems == [], "\n".join(problems)


# What no form of the site sends, each in every field at once: a number too large for any column, a value
# longer than any field allows, a sign, markup. The site's own forms only; not the crawler's sign-out.
_BAD_VALUES = ["9" * 40, "x" * 3000, "-1", "<b>"]
# Forms of one URL pattern sent (the comment form of each Thing is one kind of form).
FORMS_PER_PATTERN = 3
# Forms that end the crawler's session for good (signing out, closing the account) are left out.
_ENDS_SESSION = re.compile(r"^/(accounts/logout|logout|account/close)")


def test_a_signed_in_maker_meets_no_broken_link_and_no_form_fails(seeded):
    """The maker's crawl; then every kind of form the maker's pages hold (a few of each URL pattern), sent
    empty and with values no form sends: an answer for each (the form again with its errors, a redirect, a
    refusal), never a failure (5xx) (issue 23: bad input gets a clear error). Sending them changes the
    maker's data only inside this test's transaction, after the crawl. One of the maker's Things is hidden
    by a moderator first: its creator still sees it, with why, and the appeal's page and form."""
    from apps.core.domain.moderation import moderation_hide
    from apps.things.models import Thing

    moderator = _moderator()
    hidden = Thing.objects.filter(creator__username="demo", is_published=True).order_by("pk")[0]
    moderation_hide(obj=hidden, reason="Crawled hidden.", by=moderator)
    client = Client()
    assert client.login(username="demo", password=DEMO_PASSWORD)
    forms: dict[str, list[str]] = {}
    seen, problems = crawl(client, forms=forms)
    assert len(seen) > 20
    assert problems == [], "\n".join(problems)
    assert seen.get(f"/appeal/thing/{hidden.pk}") == 200
    per_pattern: Counter = Counter()
    sent: dict[str, list[str]] = {}
    for action, fields in sorted(forms.items()):
        path = urlsplit(action).path
        if _ENDS_SESSION.match(path):
            continue
        kind = _pattern(path) or path
        per_pattern[kind] += 1
        if per_pattern[kind] <= FORMS_PER_PATTERN:
            sent[action] = fields
    assert len(sent) > 30
    failures = []
    for action, fields in sent.items():
        fields = [name for name in fields if name != "csrfmiddlewaretoken"]
        for body in ({}, *({name: value for name in fields} for value in _BAD_VALUES)):
            response = client.post(action, body)
            if response.status_code >= 500:
                failures.append(f"POST {action} {sorted(body)[:4]}…: {response.status_code}")
            if "_auth_user_id" not in client.session:  # a form that signs out (a password change): back in
                assert client.login(username="demo", password=DEMO_PASSWORD)
    assert failures == [], "\n".join(failures)


def test_a_moderator_meets_no_broken_link_in_the_admin(seeded):
    """Every item's own admin page, in each state a moderator meets: hidden, a draft's, a closed account's."""
    from apps.comments.models import Comment
    from apps.core.domain.moderation import moderation_hide
    from apps.groups.models import Group
    from apps.makes.models import Make
    from apps.things.models import Thing

    moderator = _moderator()
    for model in (Thing, Make, Comment, Group):
        moderation_hide(obj=model.objects.order_by("pk")[0], reason="Crawled hidden.", by=moderator)
    assert Thing.objects.filter(is_published=False).exists()  # a draft, whose page only its creator sees
    client = Client()
    client.force_login(moderator)
    seen, problems = crawl(client, "/admin/")
    assert len(seen) > 20
    assert problems == [], "\n".join(problems)
