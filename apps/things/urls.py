"""One path() per spec path (spec §4.2); the core middleware makes both slash forms answer."""
from apps.things.urls_catalog import urlpatterns as catalog_urlpatterns

urlpatterns: list = [] + catalog_urlpatterns
