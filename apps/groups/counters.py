"""The one owner of a group topic's comment_count (apps.comments moves it through here, as it moves a
Thing's through apps.things.counters and a make's through apps.makes.counters)."""
from django.db.models import F

from apps.groups.models import GroupTopic


def topic_count_add(topic_id: int, counter: str, delta: int) -> int:
    """Move `counter` by `delta` (never below 0); how many rows changed (0: the topic is gone)."""
    if counter != "comment_count":
        raise ValueError(f"not a topic counter: {counter}")
    rows = GroupTopic.objects.filter(pk=topic_id)
    if delta < 0:
        rows = rows.filter(comment_count__gte=-delta)
    return rows.update(comment_count=F("comment_count") + delta)
