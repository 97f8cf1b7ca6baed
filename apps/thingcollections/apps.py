from django.apps import AppConfig


class ThingCollectionsConfig(AppConfig):
    name = "apps.thingcollections"
    # Not "collections": that label shadows Python's stdlib module name in some tooling.
    label = "thingcollections"
    verbose_name = "Collections"

    def ready(self):
        from apps.accounts.release import user_release_register
        from apps.search.registry import SearchType, search_type_register
        from apps.thingcollections import selectors, services
        from apps.thingcollections.serializers import CollectionSerializer

        # Account deletion: the user's collections go with each Thing's collect_count (accounts.release).
        user_release_register("thingcollections", services.collections_release_for_user)
        # spec §4.7: search answers collections too (`type=collections`), on the site's search page as well.
        search_type_register(
            SearchType(
                name="collections",
                search=selectors.collection_search,
                serializer_class=CollectionSerializer,
                page_prepare=selectors.collection_attach_thumbnails,
                label="Collections",
                page_template="thingcollections/_collection_grid.html",
            )
        )

        # The Thing page's "collect" action and the profile's collections (apps.core.site.sections,
        # apps.accounts.profiles: those never import this app).
        from apps.thingcollections import pages

        pages.register()
