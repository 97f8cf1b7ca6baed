from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "apps.search"
    label = "search"
    verbose_name = "Search"

    def ready(self):
        from django.db.models.signals import post_migrate

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
        # The quick start's stemming index (SQLite only): its triggers re-created after each migrate, since
        # SQLite rebuilds a table it alters and drops the table's triggers with it.
        post_migrate.connect(_fts_after_migrate, sender=self, dispatch_uid="search-sqlite-fts")


def _fts_after_migrate(using="default", **kwargs):
    from django.db import connections

    from apps.search.backend import sqlite_fts_ensure

    sqlite_fts_ensure(connections[using])
