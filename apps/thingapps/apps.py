from django.apps import AppConfig


class ThingAppsConfig(AppConfig):
    name = "apps.thingapps"
    label = "thingapps"
    verbose_name = "Thing apps"

    def ready(self):
        # The Thing page's app list and SDK host (apps.core.site.sections).
        from apps.thingapps import pages

        pages.register_sections()
