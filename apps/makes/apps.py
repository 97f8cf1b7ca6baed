from django.apps import AppConfig


class MakesConfig(AppConfig):
    name = "apps.makes"
    label = "makes"
    verbose_name = "Makes (copies)"
