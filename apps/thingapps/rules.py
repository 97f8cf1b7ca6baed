"""Pure rules of Thing apps and the iframe SDK host (spec §4.11): what may be embedded, the host's
commands and the dialogs' parameters. No queries."""

from datetime import timedelta

from apps.core.pipeline.cors import origin_of

# spec §4.11: `echo` plus the four dialogs; `payment` and `address` open the orders checkout.
ECHO = "echo"
DIALOGS = ("file_select", "thing_select", "thing_search", "thing_save", "payment", "address")
COMMANDS = (ECHO, *DIALOGS)

# thing_select: "the user's Things, filterable by designed, made, collected or liked".
THING_SELECT_FILTERS = ("designed", "made", "collected", "liked")
DIALOG_PAGE_SIZE = 20
SEARCH_TERM_MAX_LENGTH = 200
EXTENSIONS_MAX = 20
EXTENSION_MAX_LENGTH = 16

# Host tokens: a day long, reused while two hours are left, so a page opened near the end of one still
# has a working token for a long session.
HOST_TOKEN_LIFETIME = timedelta(hours=24)
HOST_TOKEN_MIN_REMAINING = timedelta(hours=2)

# The Thing page lists at most this many apps (alphabetical); a longer catalogue belongs on its own page.
THING_APP_LIST_MAX = 50

# The iframe: scripts, forms and popups for the app, its own origin for its storage and API calls.
# Never allow-top-navigation, and never the host's own origin (see thing_app_embed_blockers).
IFRAME_SANDBOX = "allow-scripts allow-forms allow-same-origin allow-popups"


def thing_app_is_listed(*, app_type: str, approval_state: str, application_url: str) -> bool:
    """An approved Thing-type app with an application URL is offered on Thing pages."""
    return app_type == "thing" and approval_state == "approved" and origin_of(application_url) is not None


def thing_app_embed_blockers(*, application_url: str, site_urls: list[str]) -> list[str]:
    """Why the app cannot be embedded in a sandboxed iframe of the site (empty: it can).

    `allow-scripts` with `allow-same-origin` lets a same-origin document remove its own sandbox, so
    an app served from the site's origin would run with the user's session: refused.
    """
    origin = origin_of(application_url)
    if origin is None:
        return ["The application URL is not an http(s) URL."]
    if origin in {origin_of(url) for url in site_urls}:
        return ["The application is served from Thingyard's own origin."]
    return []


def extension_list_parse(raw) -> list[str]:
    """file_select `extension`: "stl, .OBJ" → ["stl", "obj"]: lower case, no dot, no duplicates."""
    if raw is None:
        return []
    items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
    extensions: list[str] = []
    for item in items:
        extension = str(item).strip().lstrip(".").lower()
        if extension and len(extension) <= EXTENSION_MAX_LENGTH and extension not in extensions:
            extensions.append(extension)
    return extensions[:EXTENSIONS_MAX]


def flag_parse(value) -> bool | None:
    """spec §4.11 thing_save `is_published` / `is_wip` are numbers; 1/0, true/false and "on" are read
    too. None when absent or unreadable."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "on", "yes"):
        return True
    if text in ("0", "false", "off", "no"):
        return False
    return None


def tags_text_parse(raw) -> list[str]:
    """thing_save `tags`: a comma-separated string (spec) or a list; blanks dropped."""
    if raw is None:
        return []
    items = raw if isinstance(raw, (list, tuple)) else str(raw).split(",")
    return [str(item).strip() for item in items if str(item).strip()]


def iframe_src(*, application_url: str, thing_id: int, access_token: str, expires_in: int) -> str:
    """The app's URL as the host loads it (docs/thing-apps.md: launch parameters).

    `thing_id` goes in the query (the app's server may want it); the token only in the fragment,
    which the browser never sends to a server, so it stays out of access logs and Referer headers.
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(application_url)
    query = [
        (key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "thing_id"
    ]
    query.append(("thing_id", str(thing_id)))
    fragment = urlencode(
        [
            ("access_token", access_token),
            ("token_type", "bearer"),
            ("expires_in", str(max(expires_in, 0))),
            ("thing_id", str(thing_id)),
        ]
    )
    return urlunsplit(parts._replace(path=parts.path or "/", query=urlencode(query), fragment=fragment))
