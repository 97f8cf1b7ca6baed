"""apps.core.pipeline.fields: the input fields of the API's conventions."""
import pytest
from rest_framework import serializers

from apps.core.pipeline.fields import CharField, StrictCharField


class _Input(serializers.Serializer):
    strict = StrictCharField(required=False, allow_blank=True, max_length=5)
    plain = CharField(required=False, allow_null=True, max_length=5)
    nonblank = StrictCharField(required=False, max_length=5)


def _errors(**data):
    serializer = _Input(data=data)
    serializer.is_valid()
    return serializer.errors, serializer.validated_data if not serializer.errors else None


@pytest.mark.parametrize("name", ["strict", "plain", "nonblank"])
@pytest.mark.parametrize("value", ["abcdef", "abc   ", "   abc", "      ", "\n\n\n\n\n\n", "a\u3000\u3000\u3000\u3000\u3000"])
def test_a_value_longer_than_max_length_as_sent_is_refused(name, value):
    errors, _ = _errors(**{name: value})
    assert errors == {name: ["Ensure this field has no more than 5 characters."]}


@pytest.mark.parametrize("name", ["strict", "plain"])
def test_within_the_limit_the_surrounding_whitespace_is_trimmed_as_drf_does(name):
    errors, data = _errors(**{name: " ab  "})
    assert not errors
    assert data == {name: "ab"}


def test_blank_and_null_keep_their_own_rules():
    assert _errors(strict="     ")[1] == {"strict": ""}
    assert _errors(plain=None)[1] == {"plain": None}
    assert _errors(nonblank="   ")[0] == {"nonblank": ["This field may not be blank."]}


def test_the_strict_field_still_refuses_a_number():
    assert _errors(strict=12345)[0] == {"strict": ["Not a valid string."]}
    assert _errors(plain=12345)[1] == {"plain": "12345"}
