"""The vendor switch, and the substring fallback the SQLite quick start searches with."""
from types import SimpleNamespace

import pytest

from apps.search import selectors, services
from apps.search.backend import full_text_search_enabled
from apps.search.selectors import SearchParams, search_words
from apps.things.tests.factories import ThingFactory


def test_full_text_search_runs_on_postgresql_only():
    assert full_text_search_enabled(SimpleNamespace(vendor="postgresql")) is True
    assert full_text_search_enabled(SimpleNamespace(vendor="sqlite")) is False
    assert full_text_search_enabled(SimpleNamespace(vendor="mysql")) is False


@pytest.mark.django_db
def test_the_test_database_uses_full_text_search():
    assert full_text_search_enabled() is True


def test_search_words_drop_websearch_operators():
    assert search_words('"wall bracket" -shelf  or ') == ["wall", "bracket", "shelf", "or"]
    assert search_words("  ") == []


@pytest.fixture
def substring_backend(monkeypatch):
    """Run the selectors' non-PostgreSQL branch against the real database (what SQLite would run)."""
    monkeypatch.setattr(selectors, "full_text_search_enabled", lambda connection=None: False)
    monkeypatch.setattr(services, "full_text_search_enabled", lambda connection=None: False)


@pytest.mark.django_db
def test_without_postgresql_indexing_is_a_no_op(substring_backend, django_assert_num_queries):
    thing = ThingFactory()
    with django_assert_num_queries(0):
        services.thing_index_search(thing_ids=[thing.pk])
    assert services.thing_index_search_all() == 0


@pytest.mark.django_db
def test_without_postgresql_a_term_matches_substrings_name_first(substring_backend, user):
    in_description = ThingFactory(name="Shelf", description="Holds a bracket.")
    in_tag = ThingFactory(name="Shelf support", description="", tags=["bracket_set"])
    in_name = ThingFactory(name="Corner BRACKET", description="")
    ThingFactory(name="Hook", description="Nothing here.")
    ThingFactory(name="Hidden bracket", is_published=False)

    found = selectors.thing_search(term="bracket", viewer=user, params=SearchParams())
    assert [t.pk for t in found] == [in_name.pk, in_tag.pk, in_description.pk]


@pytest.mark.django_db
def test_without_postgresql_every_word_must_match(substring_backend, user):
    both = ThingFactory(name="Wall hook", description="")
    ThingFactory(name="Wall bracket", description="")
    found = selectors.thing_search(term="wall hook", viewer=user, params=SearchParams())
    assert [t.pk for t in found] == [both.pk]


@pytest.mark.django_db
def test_without_postgresql_autocomplete_matches_name_prefixes(substring_backend):
    thing = ThingFactory(name="Bracket for shelves", tags=["brackets"])
    ThingFactory(name="Shelf bracket")
    assert selectors.search_autocomplete(term="BRA") == [
        {"type": "tag", "id": "brackets", "name": "brackets", "url": "http://testserver/tags/brackets"},
        {"type": "thing", "id": thing.pk, "name": "Bracket for shelves",
         "url": f"http://testserver/thing:{thing.pk}"},
    ]
