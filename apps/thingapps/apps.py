from django.apps import AppConfig


class ThingAppsConfig(AppConfig):
    name = "apps.thingapps"
    label = "thingapps"
    verbose_name = "Thing apps"
