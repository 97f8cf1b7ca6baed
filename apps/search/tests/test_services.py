"""thing_index_search and search_reindex: the weighted vector every search reads."""
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection

from apps.search.services import thing_index_search, thing_index_search_all
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def vector(thing) -> dict[str, str]:
    """The stored vector as {lexeme: positions with weights}, e.g. {'bracket': '1A'}."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM things_thing WHERE id = %s", [thing.pk])
        text = cursor.fetchone()[0]
    if text is None:
        return {}
    entries = {}
    for entry in text.split(" "):
        lexeme, _, positions = entry.rpartition(":")
        entries[lexeme.strip("'")] = positions
    return entries


def weights(thing) -> dict[str, set[str]]:
    return {lexeme: {p[-1] if p[-1] in "ABC" else "D" for p in positions.split(",")}
            for lexeme, positions in vector(thing).items()}


def test_the_vector_weighs_name_a_tags_b_and_description_c():
    thing = ThingFactory(
        name="Wall Brackets",
        description="Holds shelves firmly.",
        instructions="Print with supports.",
        tags=["wall_mount", "Heavy-Duty"],
    )
    thing_index_search(thing_ids=[thing.pk])
    w = weights(thing)
    assert w["bracket"] == {"A"}  # English stemming: brackets → bracket
    assert w["wall"] == {"A", "B"}  # in the name, and in the tag wall_mount
    assert w["mount"] == {"B"}  # underscores split tag words
    assert w["heavy-duti"] == w["heavi"] == w["duti"] == {"B"}  # a hyphenated tag: whole and parts
    assert w["shelv"] == {"C"}
    assert w["firm"] == {"C"}
    # Instructions are printing boilerplate: not searchable.
    assert "support" not in w
    assert "print" not in w


def test_a_thing_without_tags_or_description_still_gets_its_name():
    thing = ThingFactory(name="Cable clip", description="")
    thing_index_search(thing_ids=[thing.pk])
    assert weights(thing) == {"cabl": {"A"}, "clip": {"A"}}


def test_it_updates_only_the_given_things_in_one_statement(django_assert_num_queries):
    first, second, untouched = ThingFactory.create_batch(3)
    with django_assert_num_queries(1):  # UPDATE … FROM (the vectors of the given ids)
        thing_index_search(thing_ids=[first.pk, second.pk, first.pk])
    assert vector(first) and vector(second)
    assert vector(untouched) == {}


def test_it_recomputes_after_a_rename():
    thing = ThingFactory(name="Old gear")
    thing_index_search(thing_ids=[thing.pk])
    Thing.objects.filter(pk=thing.pk).update(name="New pulley")
    thing_index_search(thing_ids=[thing.pk])
    assert "gear" not in vector(thing)
    assert weights(thing)["pulley"] == {"A"}


def test_no_ids_is_a_no_op(django_assert_num_queries):
    with django_assert_num_queries(0):
        thing_index_search(thing_ids=[])


def test_reindex_all_walks_every_thing_in_batches():
    things = ThingFactory.create_batch(5)
    assert thing_index_search_all(batch_size=2) == 5
    assert all(vector(thing) for thing in things)


def test_the_search_reindex_command_indexes_every_thing():
    things = ThingFactory.create_batch(3)
    out = StringIO()
    call_command("search_reindex", "--batch-size", "2", stdout=out)
    assert out.getvalue().strip() == "Indexed 3 Things."
    assert all(vector(thing) for thing in things)
