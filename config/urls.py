from django.contrib import admin
from django.urls import include, path

from apps.core.adminkit.dashboard import moderation_dashboard
from apps.core.pipeline.views import OpenApiView, SwaggerUiView, swagger_oauth2_redirect
from apps.core.pipeline.routing import path_aliases, segment_indexed
from config.health import healthz, readyz

urlpatterns = [
    path("admin/moderation/", admin.site.admin_view(moderation_dashboard), name="moderation-dashboard"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),  # liveness
    path("readyz", readyz, name="readyz"),  # readiness: pages, static files, PostgreSQL, Redis, broker, store
    path("openapi.json", OpenApiView.as_view(), name="openapi-schema"),
    path("docs/", SwaggerUiView.as_view(url_name="openapi-schema"), name="api-docs"),
    path("docs/oauth2-redirect.html", swagger_oauth2_redirect, {"name": "oauth2-redirect.html"}, name="api-docs-oauth2"),
    path("docs/oauth2-redirect.js", swagger_oauth2_redirect, {"name": "oauth2-redirect.js"}),
    path("", include("apps.oauth.urls")),
    path("", include("apps.developers.urls")),
    path("", include("apps.accounts.urls")),
    path("", include("apps.things.urls")),
    path("", include("apps.search.urls")),
    path("", include("apps.uploads.urls")),
    path("", include("apps.orders.urls")),
    path("", include("apps.thingcollections.urls")),
    path("", include("apps.groups.urls")),
    path("", include("apps.makes.urls")),
    path("", include("apps.comments.urls")),
    path("", include("apps.thingapps.urls")),
    path("", include("apps.reports.urls")),
    path("", include("apps.notifications.urls")),
    path("", include("apps.demo.urls")),  # the demo app's callback page (issue 23)
]

# docs/decisions.md (compat): the modern path names of the original API's clients answer as the spec's paths.
urlpatterns += path_aliases(urlpatterns)
# Resolution tries only the patterns that can match a path's first segment (apps.core.pipeline.routing).
urlpatterns = [segment_indexed(urlpatterns)]

handler400 = "apps.core.pipeline.views.bad_request"
handler403 = "apps.core.pipeline.views.permission_denied"
handler404 = "apps.core.pipeline.views.not_found"
handler500 = "apps.core.pipeline.views.server_error"
