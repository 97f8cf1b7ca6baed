from django.apps import AppConfig


class ThingCollectionsConfig(AppConfig):
    name = "apps.thingcollections"
    # Not "collections": that label shadows Python's stdlib module name in some tooling.
    label = "thingcollections"
    verbose_name = "Collections"

    def ready(self):
        # The Thing page's "collect" action, the profile's collections and the search type (registries of
        # apps.things, apps.accounts and apps.search: those never import this app).
        from apps.thingcollections import pages

        pages.register()
