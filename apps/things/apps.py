from django.apps import AppConfig


class ThingsConfig(AppConfig):
    name = "apps.things"
    label = "things"
    verbose_name = "Things"

    def ready(self):
        from apps.accounts.selectors import event_target_register
        from apps.things.models import Thing

        # event-count: events about a Thing (likes, collects) stop counting once it is deleted or hidden.
        event_target_register("thing", lambda: Thing.objects.filter(is_hidden=False))

        # The profile's "Things" and "Likes" tabs (apps.accounts.profiles).
        from apps.things.pages import profile

        profile.register()
