from django.apps import AppConfig
from django.db.models import Q


class CommentsConfig(AppConfig):
    name = "apps.comments"
    label = "comments"
    verbose_name = "Comments"

    def ready(self):
        # event-count stops counting a comment event once the comment is deleted or hidden, or hidden with
        # what it is on (a hidden Thing, copy or group hides its comments: docs/decisions.md Comments).
        from apps.accounts.release import user_release_register
        from apps.activity.selectors import event_target_register
        from apps.comments import services
        from apps.comments.models import Comment

        def live_comments():
            return Comment.objects.filter(is_hidden=False, is_deleted=False).exclude(
                Q(thing__is_hidden=True) | Q(make__is_hidden=True) | Q(make__thing__is_hidden=True)
                | Q(topic__group__is_hidden=True)
            )

        event_target_register("comment", live_comments)
        # Account deletion: the user's comments vanish with their counters (accounts.release).
        user_release_register("comments", services.comments_release_for_user)

        # The conversations of the Thing, make and group topic pages (apps.core.site.sections).
        from apps.comments import pages

        pages.register_sections()
