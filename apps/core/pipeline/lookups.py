"""The small lookups every selector shares: an id from a path or a body, the viewer's id."""
from apps.core.pipeline.api import MAX_ID
from apps.core.domain.exceptions import NotFound


def id_or_404(value) -> int:
    """A row id from a path segment or a body (`12`, `"12"`); 404 for anything else, and for a number
    outside 1..MAX_ID: past a bigint it names no row, and the database driver would fail on it."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise NotFound() from None
    if not 0 < value <= MAX_ID:
        raise NotFound()
    return value


def viewer_id(viewer) -> int | None:
    """The signed-in viewer's user id; None for anonymous callers and app tokens without a user."""
    return viewer.pk if viewer is not None and viewer.is_authenticated else None
