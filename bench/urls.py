"""The real URLconf plus the framework-floor route and the DRF baseline; used by bench.settings only, never
in production."""
from django.urls import include, path
from rest_framework.routers import SimpleRouter

from bench.drf_baseline import DRF_PREFIX, ThingViewSet
from bench.views import floor, floor_waits
from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as config_urlpatterns

FLOOR_PATH = "/bench/floor/"
FLOOR_WAITS_PREFIX = "/bench/floor-waits/"

router = SimpleRouter()
router.register("things", ThingViewSet, basename="bench-drf-thing")

urlpatterns = [
    path(FLOOR_PATH.strip("/") + "/", floor, name="bench-floor"),
    path(FLOOR_WAITS_PREFIX.strip("/") + "/<int:thing_id>/", floor_waits, name="bench-floor-waits"),
    path(DRF_PREFIX.removesuffix("things/").strip("/") + "/", include(router.urls)),
    *config_urlpatterns,
]
