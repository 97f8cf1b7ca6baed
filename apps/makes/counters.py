"""The one owner of a make's counters (like_count, comment_count) and its row lock, as apps.things.counters
is for Things: likes (apps.activity.likes) and comments move them through here."""
from collections.abc import Iterable

from django.db.models import F

from apps.makes.models import Make

COUNTERS = frozenset({"like_count", "comment_count"})


def make_lock(make_id: int) -> bool:
    """Hold the make's row until commit (a concurrent delete waits); False when it is already gone."""
    return Make.objects.select_for_update().filter(pk=make_id).values_list("pk", flat=True).first() is not None


def makes_lock(make_ids: Iterable[int]) -> list[int]:
    """Hold these makes' rows until commit, in id order; the ids of those that still exist."""
    rows = Make.objects.select_for_update().filter(pk__in=sorted(set(make_ids))).order_by("pk")
    return list(rows.values_list("pk", flat=True))


def make_count_add(make_ids: int | Iterable[int], counter: str, delta: int) -> int:
    """Move `counter` by `delta` on these makes (never below 0); how many rows changed (0: gone)."""
    if counter not in COUNTERS:
        raise ValueError(f"not a make counter: {counter}")
    ids = [make_ids] if isinstance(make_ids, int) else sorted(set(make_ids))
    rows = Make.objects.filter(pk__in=ids)
    if delta < 0:
        rows = rows.filter(**{f"{counter}__gte": -delta})
    return rows.update(**{counter: F(counter) + delta})
