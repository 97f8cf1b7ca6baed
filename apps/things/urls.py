"""One path() per spec path (spec §4.2, and §4.1's Things lists); the core middleware makes both slash
forms answer."""
from django.urls import path

from apps.things import views
from apps.things.urls_catalog import urlpatterns as catalog_urlpatterns
from apps.things.urls_pages import urlpatterns as page_urlpatterns

thing = "things/<int:thing_id>"

urlpatterns: list = [
    path("things/", views.ThingCreateView.as_view(), name="thing-create"),
    path(f"{thing}/", views.ThingDetailView.as_view(), name="thing-detail"),
    path(f"{thing}/publish", views.ThingPublishView.as_view(), name="thing-publish"),
    path(f"{thing}/likes", views.ThingLikesView.as_view(), name="thing-likes"),
    path(f"{thing}/toggle-watch", views.ThingToggleWatchView.as_view(), name="thing-toggle-watch"),
    path(f"{thing}/ancestors", views.ThingAncestorsView.as_view(), name="thing-ancestors"),
    path(f"{thing}/derivatives", views.ThingDerivativesView.as_view(), name="thing-derivatives"),
    path(f"{thing}/tags", views.ThingTagsView.as_view(), name="thing-tags"),
    path(f"{thing}/categories", views.ThingCategoriesView.as_view(), name="thing-categories"),
    path(
        f"{thing}/hack-the-pandemic-thing",
        views.ThingHackThePandemicView.as_view(),
        name="thing-hack-the-pandemic-thing",
    ),
    # spec §4.1: the Things lists of a user (the `username` converter is registered by apps.accounts).
    path("users/<username:username>/things", views.UserThingsView.as_view(), name="user-things"),
    path("users/<username:username>/likes", views.UserLikesView.as_view(), name="user-likes"),
    path("users/<username:username>/favorites", views.UserFavoritesView.as_view(), name="user-favorites"),
] + catalog_urlpatterns + page_urlpatterns
