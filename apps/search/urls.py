"""One path() per spec path (spec §4.1 user search, §4.7 search); the core middleware makes both slash
forms answer.

An optional term left out of a spec path leaves an empty segment: `/search//library` is the library
without a term, as a client formatting `/search/{term}/library` with "" sends it. `/search/library`
stays a search for the word "library".
"""
from django.urls import path

from apps.search import views
from apps.search.urls_pages import urlpatterns as page_urlpatterns

urlpatterns = [
    path("search/", views.SearchView.as_view(), name="search"),
    path("search/<term:term>/", views.SearchView.as_view(), name="search-term"),
    path("search//library", views.SearchLibraryView.as_view(), name="search-library-all"),
    path("search/<term:term>/library", views.SearchLibraryView.as_view(), name="search-library"),
    path("search//tag", views.SearchTagView.as_view(), name="search-tag-all"),
    path("search/<term:tag>/tag", views.SearchTagView.as_view(), name="search-tag"),
    path("search//autocomplete", views.SearchAutocompleteView.as_view(), name="search-autocomplete-empty"),
    path(
        "search/<term:term>/autocomplete", views.SearchAutocompleteView.as_view(), name="search-autocomplete"
    ),
    # The `username` converter is registered by apps.accounts.urls (included before this module).
    path("users/<username:username>/search/", views.UserSearchView.as_view(), name="user-search-all"),
    path("users/<username:username>/search/<term:term>", views.UserSearchView.as_view(), name="user-search"),
] + page_urlpatterns
