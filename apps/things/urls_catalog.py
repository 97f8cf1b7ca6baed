"""Categories, tags and discovery lists (spec §4.7)."""
from django.urls import path

from apps.things import views_catalog as views

urlpatterns: list = [
    # spec §4.7: `/categories/{category_slug}/` and `/tags/{tag}/` with the segment left out are the lists.
    path("categories/", views.CategoryListView.as_view(), name="category-list"),
    path("categories/<str:slug>/", views.CategoryDetailView.as_view(), name="category-detail"),
    path("categories/<str:slug>/things", views.CategoryThingsView.as_view(), name="category-things"),
    path("tags/", views.TagListView.as_view(), name="tag-list"),
    path("tags/<term:tag>/", views.TagDetailView.as_view(), name="tag-detail"),
    path("tags/<term:tag>/things", views.TagThingsView.as_view(), name="tag-things"),
    # Discovery lists beyond the spec.
    path("newest/", views.NewestThingsView.as_view(), name="things-newest"),
    path("popular/", views.PopularThingsView.as_view(), name="things-popular"),
    path("featured/", views.FeaturedThingsView.as_view(), name="things-featured"),
]
