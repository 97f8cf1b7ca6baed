from functools import partial

from django.apps import AppConfig


class UploadsConfig(AppConfig):
    """Uploads in four parts: flow (start, finalize, verify), files (a Thing's files and images,
    downloads), packages (the package-url ZIP) and processing (sizes, renders, geometry)."""

    name = "apps.uploads"
    label = "uploads"
    verbose_name = "Uploads and files"

    def ready(self):
        from apps.things.hooks import ThingImages, thing_images_register
        from apps.uploads import links, pages
        from apps.uploads.files import selectors as file_selectors
        from apps.uploads.files import services as file_services
        from apps.uploads.flow.services import upload_finalizer_register, user_image_finalize
        from apps.uploads.models import Upload

        # What an upload becomes (spec §4.10), kind by kind; makes and groups register theirs too.
        upload_finalizer_register(Upload.Kind.THING_FILE, file_services.thing_file_finalize)
        upload_finalizer_register(Upload.Kind.THING_IMAGE, file_services.thing_image_finalize)
        upload_finalizer_register(Upload.Kind.AVATAR, partial(user_image_finalize, "avatar"))
        upload_finalizer_register(Upload.Kind.COVER, partial(user_image_finalize, "cover"))
        # A Thing's default image and thumbnail (spec §2): what its pointers name (kept by
        # files.services.thing_pictures_refresh), read in the Thing's own query.
        thing_images_register(
            ThingImages(
                related=file_selectors.THING_PICTURE_RELATED,
                fields=file_selectors.THING_PICTURE_FIELDS,
                deferred=file_selectors.thing_picture_deferred(),
                thumbnail_url=links.thing_thumbnail_url_from_pointers,
                default_image=links.thing_default_image_from_pointers,
                preview_url=links.thing_preview_url_from_pointers,
            )
        )
        # The Thing page's gallery, file list, "download all" and the edit page's file manager
        # (apps.core.site.sections: things never imports this app's pages).
        pages.register_sections()
