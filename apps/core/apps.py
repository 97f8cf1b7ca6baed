from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"

    def ready(self):
        from django.urls import register_converter

        from apps.core.pipeline import cors  # noqa: F401  (connects the CORS origin check)
        from apps.core.pipeline.routing import FormEncodedSegmentConverter

        register_converter(FormEncodedSegmentConverter, "term")
