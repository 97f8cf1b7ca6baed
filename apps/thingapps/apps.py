from django.apps import AppConfig


class ThingAppsConfig(AppConfig):
    name = "apps.thingapps"
    label = "thingapps"
    verbose_name = "Thing apps"

    def ready(self):
        from apps.thingapps.pages import thing_page_apps
        from apps.things.hooks import thing_page_section_register

        # The Thing page lists the Thing apps a signed-in user can open there (its `thing_apps`).
        thing_page_section_register("thing_apps", thing_page_apps)
