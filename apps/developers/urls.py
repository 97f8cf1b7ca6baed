from django.urls import path

from apps.developers import docs, views, views_webhook_events

app_name = "developers"

urlpatterns = [
    path("developers/", docs.hub, name="hub"),
    path("developers/docs/", docs.docs_index, name="docs-index"),
    path("developers/docs/<slug:page>", docs.docs_page, name="docs"),
    path("developers/apps/", views.ApplicationListView.as_view(), name="app-list"),
    path("developers/apps/new", views.ApplicationCreateView.as_view(), name="app-new"),
    path("developers/apps/<int:pk>/", views.ApplicationDetailView.as_view(), name="app-detail"),
    path("developers/apps/<int:pk>/secret", views.ApplicationSecretRotateView.as_view(), name="app-secret"),
    path(
        "developers/apps/<int:pk>/webhook-secret",
        views.ApplicationWebhookSecretRotateView.as_view(),
        name="app-webhook-secret",
    ),
    path(
        "developers/apps/<int:pk>/webhook-events",
        views_webhook_events.ApplicationWebhookEventsView.as_view(),
        name="app-webhook-events",
    ),
    path("developers/apps/<int:pk>/webhook-ping", views.ApplicationWebhookPingView.as_view(), name="app-webhook-ping"),
    path(
        "developers/apps/<int:pk>/webhook-deliveries/<int:delivery_pk>/redeliver",
        views.ApplicationWebhookRedeliverView.as_view(),
        name="app-webhook-redeliver",
    ),
    path(
        "developers/apps/<int:pk>/readonly-token",
        views.ApplicationReadonlyTokenView.as_view(),
        name="app-readonly-token",
    ),
    path("developers/apps/<int:pk>/logo", views.ApplicationLogoView.as_view(), name="app-logo"),
    path("developers/apps/<int:pk>/wire-version", views.ApplicationWireVersionView.as_view(), name="app-wire-version"),
    path(
        "developers/apps/<int:pk>/webhook-deliveries",
        views.ApplicationDeliveryLogView.as_view(),
        name="app-webhook-deliveries",
    ),
    path("developers/apps/<int:pk>/submit", views.ApplicationSubmitView.as_view(), name="app-submit"),
    path("developers/apps/<int:pk>/delete", views.ApplicationDeleteView.as_view(), name="app-delete"),
]
