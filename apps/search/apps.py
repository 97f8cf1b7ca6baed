from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "apps.search"
    label = "search"
    verbose_name = "Search"

    def ready(self):
        from apps.search import services
        from apps.things.hooks import thing_indexer_register

        # Things call their indexers when a Thing's name, description or tags change (apps.things.hooks).
        thing_indexer_register("search", services.thing_index_search)
