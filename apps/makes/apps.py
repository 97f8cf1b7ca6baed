from django.apps import AppConfig


class MakesConfig(AppConfig):
    name = "apps.makes"
    label = "makes"
    verbose_name = "Makes (copies)"

    def ready(self):
        # spec §4.10 for copies: the uploads app finalizes, this app says what the upload becomes.
        from apps.accounts.release import user_release_register
        from apps.activity.selectors import event_target_register
        from apps.makes import services
        from apps.makes.models import Make
        from apps.uploads.models import Upload
        from apps.uploads.flow.services import upload_finalizer_register

        upload_finalizer_register(Upload.Kind.COPY_NEW, services.make_new_finalize)
        upload_finalizer_register(Upload.Kind.COPY_IMAGE, services.make_image_finalize)
        # The admin's "View on site" of a make's photo (apps.uploads) goes to the make's page, by its rule.
        from apps.core.adminkit.sitelink import site_page_rule_register
        from apps.makes.selectors import make_page_visible

        site_page_rule_register("make", make_page_visible)

        # event-count: events about a make (likes of it, the make itself) stop counting once it is
        # deleted or hidden by a moderator, itself or with its Thing, as for Things and comments.
        event_target_register("make", lambda: Make.objects.filter(is_hidden=False, thing__is_hidden=False))
        # Account deletion: the user's makes and likes of makes go with their counters (accounts.release).
        user_release_register("makes", services.makes_release_for_user)

        # spec §4.7: search answers makes (copies) too (`type=makes`), on the site's search page as well.
        from apps.makes.selectors import make_search
        from apps.makes.serializers import MakeSerializer
        from apps.search.registry import SearchType, search_type_register

        search_type_register(
            SearchType(
                name="makes",
                search=make_search,
                serializer_class=MakeSerializer,
                label="Makes",
                page_template="makes/_make_grid.html",
            )
        )

        # The Thing page's makes and the profile's makes (apps.core.site.sections, apps.accounts.profiles).
        from apps.makes import pages

        pages.register()
