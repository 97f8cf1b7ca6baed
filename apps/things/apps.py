from django.apps import AppConfig


class ThingsConfig(AppConfig):
    name = "apps.things"
    label = "things"
    verbose_name = "Things"
