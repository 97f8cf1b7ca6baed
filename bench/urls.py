"""The real URLconf plus the framework-floor route; used by bench.settings only, never in production."""
from django.urls import path

from bench.views import floor
from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as config_urlpatterns

FLOOR_PATH = "/bench/floor/"

urlpatterns = [path(FLOOR_PATH.strip("/") + "/", floor, name="bench-floor"), *config_urlpatterns]
