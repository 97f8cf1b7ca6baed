from django.apps import AppConfig


class DevelopersConfig(AppConfig):
    name = "apps.developers"
    label = "developers"
    verbose_name = "Developer portal"
