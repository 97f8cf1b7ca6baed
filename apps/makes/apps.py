from django.apps import AppConfig


class MakesConfig(AppConfig):
    name = "apps.makes"
    label = "makes"
    verbose_name = "Makes (copies)"

    def ready(self):
        # spec §4.10 for copies: the uploads app finalizes, this app says what the upload becomes.
        from apps.makes import services
        from apps.uploads.models import Upload
        from apps.uploads.services import upload_finalizer_register

        upload_finalizer_register(Upload.Kind.COPY_NEW, services.make_new_finalize)
        upload_finalizer_register(Upload.Kind.COPY_IMAGE, services.make_image_finalize)
