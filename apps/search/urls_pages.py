"""The site's search page (not part of the REST API: /search/… is the API's)."""

from django.urls import path

from apps.search import pages

urlpatterns: list = [
    path("find", pages.find, name="find"),
    path("find/suggest", pages.find_suggest, name="find-suggest"),
]
