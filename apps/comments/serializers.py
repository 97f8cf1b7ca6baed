"""Comment output (docs/decisions.md: Comment, plus `body_html`), the threaded result of spec §2, and the
inputs of spec §4.6 and the targets' comment endpoints."""
from rest_framework import serializers

from apps.accounts.links import iso8601
from apps.accounts.serializers import UserSummarySerializer
from apps.comments import selectors
from apps.comments.models import BODY_MAX_LENGTH, Comment
from apps.core.domain.moderation import viewer_sees_hidden
from apps.core.pipeline import batch, wire
from apps.core.pipeline.api import MAX_ID, api_url, site_url
from apps.core.pipeline.fields import StrictCharField
from apps.groups.links import topic_path

# The API path of each kind of target (spec §4.2, §4.4, §4.8): makes are "copies" on the wire.
TARGET_PATHS: dict[str, str] = {
    Comment.TargetType.THING: "things",
    Comment.TargetType.MAKE: "copies",
    Comment.TargetType.GROUP_TOPIC: "group-topics",
}

TARGET_TYPES = [c.value for c in Comment.TargetType]


def comment_api_url(comment_id: int, suffix: str = "") -> str:
    return api_url(f"comments/{comment_id}" + (f"/{suffix}" if suffix else ""))


def target_api_url(target_type: str, target_id: int) -> str:
    return api_url(f"{TARGET_PATHS[target_type]}/{target_id}")


class CommentSerializer(serializers.Serializer):
    """docs/decisions.md Comment: `id, url, body, user, added, modified, parent_id, target_type, target_id,
    target_url, is_deleted`, plus `body_html` (the Markdown body rendered and sanitised). A deleted
    placeholder has an empty body and `user: null`."""

    id = serializers.IntegerField(read_only=True)
    url = serializers.CharField(read_only=True, help_text="API URL of the comment.")
    body = serializers.CharField(read_only=True, help_text="Markdown, as written.")
    body_html = serializers.CharField(read_only=True, help_text="The body as safe HTML.")
    user = UserSummarySerializer(read_only=True, allow_null=True)
    added = serializers.DateTimeField(read_only=True)
    modified = serializers.DateTimeField(read_only=True)
    parent_id = serializers.IntegerField(read_only=True, allow_null=True, help_text="Null at the top level.")
    target_type = serializers.ChoiceField(choices=TARGET_TYPES, read_only=True)
    target_id = serializers.IntegerField(read_only=True)
    target_url = serializers.CharField(read_only=True, help_text="API URL of the Thing, copy or group topic.")
    is_deleted = serializers.BooleanField(read_only=True)

    def to_representation(self, comment):
        # Built directly: lists serialise up to 100 rows and the threaded result up to 2,000. The declared
        # fields above document the shape in the schema.
        data = self._common(comment)
        data["user"] = UserSummarySerializer().to_representation(comment.user) if comment.user_id else None
        return wire.apply("Comment", data, comment, self)

    # --- what wire versions other than `spec` compute (apps.core.pipeline.wire: Provide) -------------------------

    def wire_target_type(self, comment) -> str:
        return LIVE_TARGET_TYPES.get(comment.target_type, comment.target_type)

    def wire_parent_id(self, comment) -> int:
        return comment.parent_id or 0

    def wire_parent_url(self, comment) -> str:
        return comment_api_url(comment.parent_id) if comment.parent_id else ""

    def wire_is_root_comment(self, comment) -> bool:
        return comment.parent_id is None

    # Read once for all the answer's comments (apps.core.pipeline.batch), never comment by comment.

    def wire_has_children(self, comment) -> batch.Later:
        return batch.Later(_with_replies, (self._sees_hidden(), comment.pk), False)

    def wire_parent_user_name(self, comment) -> batch.Later | None:
        if comment.parent_id is None:
            return None
        return batch.Later(_authors, (self._sees_hidden(), comment.parent_id), None)

    def wire_public_url(self, comment) -> str | batch.Later:
        # The comment on its target's site page (templates/comments/_comment.html: id="comment-<id>").
        anchor = f"#comment-{comment.pk}"
        if comment.target_type == Comment.TargetType.THING:
            return site_url(f"thing:{comment.target_id}{anchor}")
        if comment.target_type == Comment.TargetType.MAKE:
            return site_url(f"make:{comment.target_id}{anchor}")
        return batch.Later(_topic_pages, (comment.target_id, anchor), "")  # under its group's slug

    def _sees_hidden(self) -> bool:
        request = self.context.get("request")
        return viewer_sees_hidden(getattr(request, "user", None))

    def threaded_representation(self, comment) -> dict:
        """The comment inside the threaded result: its author by `user_id` (see `users` there)."""
        data = self._common(comment)
        data["user_id"] = comment.user_id
        return data

    @staticmethod
    def _common(comment) -> dict:
        target_id = comment.target_id
        return {
            "id": comment.pk,
            "url": comment_api_url(comment.pk),
            "body": comment.body,
            "body_html": comment.body_html,
            "added": iso8601(comment.added),
            "modified": iso8601(comment.modified),
            "parent_id": comment.parent_id,
            "target_type": comment.target_type,
            "target_id": target_id,
            "target_url": target_api_url(comment.target_type, target_id),
            "is_deleted": comment.is_deleted,
        }


def _per_kind_of_viewer(keys: list[tuple[bool, int]], read) -> dict[tuple[bool, int], object]:
    """batch's keys (whether the viewer sees hidden comments, comment id): one `read(ids, sees_hidden=…)`
    per kind of viewer in the answer, which answers a function of the comment id."""
    found: dict[tuple[bool, int], object] = {}
    for sees_hidden in {flag for flag, _ in keys}:
        ids = [pk for flag, pk in keys if flag == sees_hidden]
        value_of = read(ids, sees_hidden=sees_hidden)
        found.update({(sees_hidden, pk): value_of(pk) for pk in ids})
    return found


def _with_replies(keys: list[tuple[bool, int]]) -> dict[tuple[bool, int], object]:
    return _per_kind_of_viewer(keys, lambda ids, sees_hidden: selectors.comment_ids_with_replies(
        ids, sees_hidden=sees_hidden).__contains__)


def _authors(keys: list[tuple[bool, int]]) -> dict[tuple[bool, int], object]:
    return _per_kind_of_viewer(keys, lambda ids, sees_hidden: selectors.comment_authors(
        ids, sees_hidden=sees_hidden).get)


def _topic_pages(keys: list[tuple[int, str]]) -> dict[tuple[int, str], str]:
    # apps.groups.links' path, as the group's own `public_url` and the site's links have it, not reversed:
    # any slug the database holds gives a URL (one of digits only has no site page, as its group has none).
    slugs = selectors.topic_group_slugs(list({topic_id for topic_id, _ in keys}))
    return {
        (topic_id, anchor): site_url(topic_path(slugs[topic_id], topic_id) + anchor)
        for topic_id, anchor in keys if topic_id in slugs
    }


class ThreadedCommentSerializer(CommentSerializer):
    """A comment of the threaded result: `user_id` instead of `user` (the summaries are in `users`)."""

    user = None  # type: ignore[assignment]  # DRF's way to leave out an inherited field
    user_id = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Null for a deleted comment."
    )


class ThreadedCommentsSerializer(serializers.Serializer):
    """spec §2 "Threaded comment result": `threads` by parent comment id ("" for the top level), each
    oldest first; `users` by user id; `truncated` when the target has more comments than one answer
    holds (the oldest are kept)."""

    # Serialises the (comments, truncated) pair of selectors.comment_thread_list.

    threads = serializers.DictField(
        child=serializers.ListField(child=ThreadedCommentSerializer()),
        help_text='Replies by parent comment id, as a string; the key "" holds the top-level comments.',
    )
    users = serializers.DictField(
        child=UserSummarySerializer(), help_text="The comments' authors by user id."
    )
    truncated = serializers.BooleanField()

    def to_representation(self, instance):
        comments, truncated = instance
        shape = CommentSerializer()
        summary = UserSummarySerializer()
        threads: dict[str, list] = {"": []}
        users: dict[str, dict] = {}
        for comment in comments:
            thread = threads.setdefault(str(comment.parent_id or ""), [])
            thread.append(shape.threaded_representation(comment))
            if comment.user_id is not None and str(comment.user_id) not in users:
                users[str(comment.user_id)] = summary.to_representation(comment.user)
        return {"threads": threads, "users": users, "truncated": truncated}


# --- inputs ------------------------------------------------------------------------------------------


def _body_field() -> StrictCharField:
    # Required and not blank once trimmed (DRF's defaults); the length is the stored column's.
    return StrictCharField(max_length=BODY_MAX_LENGTH, help_text="Markdown, at most 10,000 characters.")


class CommentBodyInput(serializers.Serializer):
    """POST /comments/{id}/reply and PATCH /comments/{id}/: `body`."""

    schema_complete_on_patch = True  # PATCH /comments/{id}/ requires `body` (apps.core.pipeline.schema)

    body = _body_field()


# The live service's name of a target type, where it differs (its document's enum): accepted on input in
# every version, answered under `thingiverse` (apps.core.pipeline.wire "Comment").
LIVE_TARGET_TYPES = {Comment.TargetType.GROUP_TOPIC.value: "grouptopic"}
_FROM_LIVE_TARGET_TYPES = {live: ours for ours, live in LIVE_TARGET_TYPES.items()}


class TargetTypeField(serializers.ChoiceField):
    """One of TARGET_TYPES, or the live service's name for it (`grouptopic`)."""

    def to_internal_value(self, data):
        if isinstance(data, str):
            data = _FROM_LIVE_TARGET_TYPES.get(data, data)
        return super().to_internal_value(data)


class CommentCreateInput(CommentBodyInput):
    """spec §2 Comment request fields: body, target_type (thing or make), target_id."""

    target_type = TargetTypeField(
        choices=TARGET_TYPES,
        # Not echoed: the first message also travels in the X-Error header, which must stay ASCII.
        error_messages={"invalid_choice": "Use thing, make or group_topic."},
        help_text="`thing` or `make` (spec §2); `group_topic` (or `grouptopic`, the live service's name) too.",
    )
    target_id = serializers.IntegerField(min_value=1, max_value=MAX_ID)


class TargetCommentCreateInput(CommentBodyInput):
    """POST /things/{id}/comments, /copies/{id}/comments, /group-topics/{id}/comments."""

    parent_id = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=MAX_ID,
        help_text="Reply to this comment of the same Thing, copy or topic; omit, null or 0 (what the "
        "`thingiverse` wire version shows at the top level) for a new thread.",
    )

    def validate_parent_id(self, value):
        return value or None  # 0 is the top level, as the `thingiverse` answers write it
