"""Search that forgives (issue 26): plurals by stemming, typos by "did you mean" (trigram candidates on
PostgreSQL), and the search box's autocomplete; the quick start's SQLite search behaves alike
(test_quickstart_search.py)."""

import pytest
from django.test import Client

from apps.search.selectors import search_suggestion
from apps.search.tests.helpers import indexed_thing

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalogue(db):
    return {
        "bracket": indexed_thing(name="Parametric Shelf Bracket", description="Holds a shelf."),
        "cube": indexed_thing(name="Calibration Cube", description="Twenty millimetres on each side."),
    }


def test_a_plural_finds_the_singular(catalogue):
    html = Client().get("/find", {"q": "brackets"}).content.decode()
    assert "Parametric Shelf Bracket" in html
    assert "Nothing matches" not in html


def test_a_typo_shows_the_closest_spelling_and_its_results(catalogue):
    html = Client().get("/find", {"q": "calibraton"}).content.decode()
    assert "Calibration Cube" in html
    assert "showing results for" in html and "calibration" in html


def test_a_suggestion_corrects_only_the_word_that_matches_nothing(catalogue):
    assert search_suggestion(term="shelf calibraton") == "shelf calibration"
    assert search_suggestion(term="bracket") == ""  # matches: nothing to correct
    assert search_suggestion(term="zzyzx") == ""  # nothing close


def test_a_hidden_or_draft_things_name_is_never_suggested(db):
    indexed_thing(name="Secret Widget", is_hidden=True)
    indexed_thing(name="Draft Gizmo", is_published=False)
    assert search_suggestion(term="widgit") == ""
    assert search_suggestion(term="gizmoo") == ""


def test_no_match_and_no_suggestion_says_nothing_matches(catalogue):
    html = Client().get("/find", {"q": "qwxzv"}).content.decode()
    assert "Nothing matches" in html and "showing results for" not in html


def test_the_search_box_offers_autocomplete(catalogue):
    body = Client().get("/find/suggest", {"q": "cali"}).json()
    assert {"type": "thing", "name": "Calibration Cube"} in body["suggestions"]
    assert Client().get("/find/suggest", {"q": ""}).json()["suggestions"] == []
    html = Client().get("/").content.decode()
    assert 'list="site-search-suggestions"' in html and 'data-suggest-url="/find/suggest"' in html
