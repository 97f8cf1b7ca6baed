from django.apps import AppConfig


class UploadsConfig(AppConfig):
    name = "apps.uploads"
    label = "uploads"
    verbose_name = "Uploads and files"

    def ready(self):
        # The Thing page's gallery, file list, "download all" and the edit page's file manager
        # (apps.core.sections: things never imports this app's pages).
        from apps.uploads import pages

        pages.register_sections()
