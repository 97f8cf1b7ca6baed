from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "apps.search"
    label = "search"
    verbose_name = "Search"

    def ready(self):
        from apps.search import services
        from apps.things.hooks import ThingIndex, thing_index_register

        # Things tell the index about every write it copies (apps.things.hooks): the search vector and the
        # search table's rows never lag their Thing.
        thing_index_register(
            ThingIndex(
                index=services.thing_index_search,
                sync=services.thing_search_sync,
                forget=services.thing_search_forget,
                counters_update=services.thing_counters_update,
                counters=services.ORDER_COUNTERS,
            )
        )
