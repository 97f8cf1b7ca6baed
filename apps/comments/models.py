"""Comments (spec §4.6) on a Thing, a make (copy) or a group topic, threaded by `parent`."""
from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.domain.moderation import Moderated

BODY_MAX_LENGTH = 10000


class Comment(Moderated):
    class TargetType(models.TextChoices):
        THING = "thing", "Thing"
        MAKE = "make", "Make"
        GROUP_TOPIC = "group_topic", "Group topic"

    target_type = models.CharField(max_length=16, choices=TargetType.choices)
    # Exactly the foreign key of `target_type` is set (constraint below): real foreign keys, so deleting a
    # Thing, make or topic deletes its comments and every list query is an indexed equality.
    # (Their indexes are the partial ones in Meta, which also serve the cascades.)
    thing = models.ForeignKey(
        "things.Thing", null=True, blank=True, on_delete=models.CASCADE, related_name="comments",
        db_index=False,
    )
    make = models.ForeignKey(
        "makes.Make", null=True, blank=True, on_delete=models.CASCADE, related_name="comments", db_index=False
    )
    topic = models.ForeignKey(
        "groups.GroupTopic", null=True, blank=True, on_delete=models.CASCADE, related_name="comments",
        db_index=False,
    )
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies", db_index=False
    )
    # 0 for a top-level comment; a reply is one deeper than its parent (rules.COMMENT_MAX_DEPTH).
    depth = models.PositiveSmallIntegerField(default=0)
    # Null once the comment is deleted as a placeholder, or its author's account is deleted.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="comments",
        db_index=False,
    )
    body = models.TextField(blank=True, max_length=BODY_MAX_LENGTH)
    body_html = models.TextField(blank=True)  # rendered and sanitised at write time (markup.py)
    is_deleted = models.BooleanField(default=False)
    # Whether this row is included in its target's comment_count right now. The counter counts visible,
    # non-deleted comments; hiding (admin) and deleting (API) run in different transactions, so each
    # reconciles this flag under the row lock instead of guessing from a state it read earlier.
    counted = models.BooleanField(default=False)
    added = models.DateTimeField(auto_now_add=True)
    modified = models.DateTimeField(auto_now=True)
    # When the author last changed the body (the site marks the comment "edited"); null if never.
    edited_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(target_type="thing", thing__isnull=False, make__isnull=True, topic__isnull=True)
                    | Q(target_type="make", thing__isnull=True, make__isnull=False, topic__isnull=True)
                    | Q(target_type="group_topic", thing__isnull=True, make__isnull=True, topic__isnull=False)
                ),
                name="comments_exactly_one_target",
            ),
            models.CheckConstraint(
                condition=Q(parent__isnull=True, depth=0) | Q(parent__isnull=False, depth__gt=0),
                name="comments_depth_matches_parent",
            ),
        ]
        # The lists of a target in id order (= creation order): all, or only the top-level ones.
        indexes = [
            models.Index(fields=["thing", "id"], condition=Q(thing__isnull=False), name="comments_thing_idx"),
            models.Index(fields=["make", "id"], condition=Q(make__isnull=False), name="comments_make_idx"),
            models.Index(fields=["topic", "id"], condition=Q(topic__isnull=False), name="comments_topic_idx"),
            models.Index(
                fields=["thing", "id"], condition=Q(thing__isnull=False, parent__isnull=True),
                name="comments_thing_root_idx",
            ),
            models.Index(
                fields=["make", "id"], condition=Q(make__isnull=False, parent__isnull=True),
                name="comments_make_root_idx",
            ),
            models.Index(
                fields=["parent", "id"], condition=Q(parent__isnull=False), name="comments_replies_idx"
            ),
            models.Index(fields=["user"], condition=Q(user__isnull=False), name="comments_user_idx"),
        ]

    def __str__(self) -> str:
        return f"Comment {self.pk} on {self.target_type} {self.target_id}"

    @property
    def target_id(self) -> int:
        target_id = {"thing": self.thing_id, "make": self.make_id, "group_topic": self.topic_id}[self.target_type]
        assert target_id is not None  # comments_one_target: the target type's column is set
        return target_id
