"""One path() per spec path (spec §4.2 files/images/package-url, §4.3, §4.1 avatar/cover/downloads), from
each part of uploads; the core middleware makes both slash forms answer."""
from apps.uploads.files.urls import urlpatterns as files_urlpatterns
from apps.uploads.flow.urls import urlpatterns as flow_urlpatterns
from apps.uploads.packages.urls import urlpatterns as packages_urlpatterns

urlpatterns: list = [*files_urlpatterns, *flow_urlpatterns, *packages_urlpatterns]
