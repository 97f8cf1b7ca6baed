from django.apps import AppConfig


class CommentsConfig(AppConfig):
    name = "apps.comments"
    label = "comments"
    verbose_name = "Comments"

    def ready(self):
        # event-count stops counting a comment event once the comment is deleted or hidden.
        from apps.accounts.selectors import event_target_register
        from apps.comments.models import Comment

        event_target_register("comment", lambda: Comment.objects.filter(is_hidden=False, is_deleted=False))
