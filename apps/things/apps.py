from django.apps import AppConfig


class ThingsConfig(AppConfig):
    name = "apps.things"
    label = "things"
    verbose_name = "Things"

    def ready(self):
        from apps.accounts.release import user_release_register
        from apps.activity.selectors import event_target_register
        from apps.things import services
        from apps.things.models import Thing

        # event-count: events about a Thing (likes, collects) stop counting once it is deleted or hidden.
        event_target_register("thing", lambda: Thing.objects.filter(is_hidden=False))
        # Account deletion: the user's likes go with their like_count (accounts.release).
        user_release_register("things.likes", services.thing_likes_release_for_user)

        # Cached Thing bodies follow every row they are built from (bodycache).
        from apps.things.signals import body_cache_signals_connect

        body_cache_signals_connect()

        # The profile's "Things" and "Likes" tabs (apps.accounts.profiles).
        from apps.things.pages import profile

        profile.register()
