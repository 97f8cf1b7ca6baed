"""Groups (spec §4.8): members, the Things shared in a group (with featured ranks) and group topics."""
from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from apps.core.domain.moderation import Moderated

NAME_MAX_LENGTH = 100
SLUG_MAX_LENGTH = 100
DESCRIPTION_MAX_LENGTH = 5000
TOPIC_NAME_MAX_LENGTH = 200
TOPIC_BODY_MAX_LENGTH = 20000
RANK_MAX = 3  # spec §8: Group Thing featured rank 0 to 3


class Group(Moderated):
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    slug = models.SlugField(max_length=SLUG_MAX_LENGTH)
    description = models.TextField(max_length=DESCRIPTION_MAX_LENGTH)
    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="created_groups")
    image = models.CharField(max_length=500, blank=True, default="")  # object-store key
    added = models.DateTimeField(auto_now_add=True)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(Lower("slug"), name="group_slug_ci_unique")]
        indexes = [models.Index(fields=["-added", "-id"], name="groups_newest_idx")]

    def __str__(self) -> str:
        return self.name


class GroupMember(models.Model):
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="group_memberships")
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["group", "user"], name="group_member_unique")]

    def __str__(self) -> str:
        return f"{self.group_id}:{self.user_id}"


class GroupThing(models.Model):
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="entries")
    thing = models.ForeignKey("things.Thing", on_delete=models.CASCADE, related_name="group_entries")
    # 0 = not featured; 1..3 = one of the group's three featured slots.
    rank = models.PositiveSmallIntegerField(default=0)
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    added = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["group", "thing"], name="group_thing_unique"),
            models.CheckConstraint(condition=models.Q(rank__gte=0, rank__lte=RANK_MAX), name="group_thing_rank_range"),
            # Backstop of the locked service: one Thing per featured slot.
            models.UniqueConstraint(
                fields=["group", "rank"], condition=models.Q(rank__gt=0), name="group_thing_featured_slot_unique"
            ),
        ]
        indexes = [models.Index(fields=["group", "-added", "-id"], name="group_entries_added_idx")]

    def __str__(self) -> str:
        return f"{self.group_id}:{self.thing_id}"


class GroupTopic(models.Model):
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="topics")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="group_topics")
    name = models.CharField(max_length=TOPIC_NAME_MAX_LENGTH)
    body = models.TextField(max_length=TOPIC_BODY_MAX_LENGTH)
    pinned = models.BooleanField(default=False)
    # Kept by the comments services (F() updates), read by every topic list.
    comment_count = models.PositiveIntegerField(default=0)
    added = models.DateTimeField(auto_now_add=True)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["group", "-pinned", "-added", "-id"], name="group_topics_list_idx")]

    def __str__(self) -> str:
        return self.name


class GroupFollow(models.Model):
    """A member follows a group (issue 26: the site's follow button); following is not joining."""

    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="follows")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="group_follows")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["group", "user"], name="group_follow_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} follows group {self.group_id}"
