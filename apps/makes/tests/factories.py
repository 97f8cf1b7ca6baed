"""Makes made directly (no upload flow, counters untouched): use services.make_create where a test
is about make_count or events."""
import factory

from apps.accounts.tests.factories import UserFactory
from apps.makes.models import Make
from apps.things.tests.factories import ThingFactory
from apps.uploads.tests.file_factories import ImageFactory


class MakeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Make

    thing = factory.SubFactory(ThingFactory)
    creator = factory.SubFactory(UserFactory)
    description = factory.Sequence(lambda n: f"Printed in PETG, attempt {n}.")


def make_image(make, **kwargs):
    """A live image of `make` with its sizes recorded (objects not in the store unless a test puts them)."""
    return ImageFactory(thing=None, copy=make, **kwargs)
