from django.apps import AppConfig


class UploadsConfig(AppConfig):
    name = "apps.uploads"
    label = "uploads"
    verbose_name = "Uploads and files"
