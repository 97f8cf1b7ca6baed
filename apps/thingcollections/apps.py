from django.apps import AppConfig


class ThingCollectionsConfig(AppConfig):
    name = "apps.thingcollections"
    # Not "collections": that label shadows Python's stdlib module name in some tooling.
    label = "thingcollections"
    verbose_name = "Collections"
