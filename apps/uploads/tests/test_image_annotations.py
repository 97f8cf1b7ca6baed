"""The picture annotations of Thing querysets are built once per process (issue 17): every queryset
resolves its own copy, so reusing them never carries one queryset's state into the next."""
import pytest

from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.files.selectors import _thing_image_annotations, thing_image_annotations
from apps.uploads.tests.file_factories import ImageFactory

pytestmark = pytest.mark.django_db


def test_the_same_expressions_serve_every_queryset_unchanged():
    first, second = ThingFactory(), ThingFactory()
    a = ImageFactory(thing=first, rank=1)
    b = ImageFactory(thing=second, featured=True)
    ImageFactory(thing=second, rank=0)
    templates = _thing_image_annotations()
    before = {name: repr(expr) for name, expr in templates.items()}

    rows = {}
    for thing in (first, second):  # two querysets, each resolving the shared expressions
        qs = Thing.objects.filter(pk=thing.pk).annotate(**thing_image_annotations())
        # The annotations come from a function (**thing_image_annotations()): django-stubs' plugin cannot
        # see their names.
        rows[thing.pk] = qs.values_list("default_image_row", flat=True).get()["id"]  # type: ignore[misc]
    combined = Thing.objects.filter(pk__in=[first.pk, second.pk]).annotate(**thing_image_annotations())

    assert rows == {first.pk: a.pk, second.pk: b.pk}
    assert {t.pk: t.default_image_row["id"] for t in combined} == rows  # type: ignore[attr-defined]
    assert _thing_image_annotations() is templates
    assert {name: repr(expr) for name, expr in templates.items()} == before
