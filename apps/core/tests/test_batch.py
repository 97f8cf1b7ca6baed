"""apps.core.pipeline.batch: values an answer reads once for all its objects."""
from apps.core.pipeline import batch
from apps.core.pipeline.renderers import render


def _loader(calls: list):
    def load(keys: list) -> dict:
        calls.append(list(keys))
        return {key: [f"{key}-a", f"{key}-b"] for key in keys if key != "none"}

    return load


def test_each_loader_is_called_once_with_its_distinct_keys_in_order():
    first_calls: list[list] = []
    second_calls: list[list] = []
    first, second = _loader(first_calls), _loader(second_calls)
    lists = [batch.later(first, key) for key in ("x", "y", "x")] + [batch.later(second, "z")]
    assert lists == [[], [], [], []]
    batch.settle()
    assert first_calls == [["x", "y"]] and second_calls == [["z"]]
    assert lists == [["x-a", "x-b"], ["y-a", "y-b"], ["x-a", "x-b"], ["z-a", "z-b"]]
    assert list(batch.waiting()) == []
    batch.settle()  # nothing pending: no call
    assert first_calls == [["x", "y"]]


def test_a_key_the_loader_does_not_answer_stays_empty():
    values = batch.later(_loader([]), "none")
    batch.settle()
    assert values == []


def test_values_that_ask_for_more_are_settled_in_the_same_call():
    calls: list[list] = []
    inner = _loader(calls)

    def outer(keys: list) -> dict:
        return {key: [{"inner": batch.later(inner, key)}] for key in keys}

    values = batch.later(outer, "k")
    batch.settle()
    assert values == [{"inner": ["k-a", "k-b"]}] and calls == [["k"]]


def test_the_renderer_settles_before_it_writes():
    data = {"items": [{"id": 1, "tags": batch.later(_loader([]), 1)}]}
    assert render(data) == b'{"items":[{"id":1,"tags":["1-a","1-b"]}]}'


def test_discard_forgets_what_a_failed_answer_asked_for():
    calls: list[list] = []
    batch.later(_loader(calls), "lost")
    batch.discard()
    batch.settle()
    assert calls == [] and list(batch.waiting()) == []


def test_fill_puts_the_default_in_place_until_settled_then_the_loaded_value():
    calls: list[list] = []

    def load(keys: list) -> dict:
        calls.append(list(keys))
        return {key: key * 2 for key in keys if key != 0}

    items: list[dict] = [{"id": key} for key in (1, 0, 1)]
    for item in items:
        batch.fill(item, "double", batch.Later(load, item["id"], "none"))
    copies = [dict(item) for item in items]  # as DRF's `.data` copies the dict its fields were put in
    assert [item["double"].value for item in items] == ["none"] * 3
    batch.settle()
    assert calls == [[1, 0]] and [item["double"].value for item in copies] == [2, "none", 2]
    assert render(copies) == b'[{"id":1,"double":2},{"id":0,"double":"none"},{"id":1,"double":2}]'
    assert render({"nested": copies[0]}) == b'{"nested":{"id":1,"double":2}}'


def test_a_wire_provide_that_answers_later_is_filled_by_the_renderer():
    from apps.core.pipeline.wire import Provide

    class Shape:
        def wire_size(self, obj):
            return batch.Later(lambda keys: {k: len(k) for k in keys}, obj, 0)

    data: dict = {}
    Provide("size", {}).apply(data, "four", Shape())
    assert data["size"].value == 0 and render(dict(data)) == b'{"size":4}'


def test_a_slot_is_written_as_its_value_by_the_indented_renderer_too():
    from apps.core.pipeline.renderers import RENDERER

    slot_data = {"a": batch.Slot(3)}
    assert RENDERER.render(slot_data, "application/json; indent=2") == b'{\n  "a": 3\n}'
