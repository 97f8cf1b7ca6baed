import factory
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Category, Tag, Thing


class ThingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Thing
        skip_postgeneration_save = True

    creator = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Parametric bracket {n}")
    description = "A sturdy bracket for shelves."
    instructions = "Print at 0.2 mm, 20% infill."
    license = "cc-sa"
    is_published = True
    published_at = factory.LazyFunction(timezone.now)

    @factory.post_generation
    def tags(self, create, extracted, **kwargs):
        if create and extracted:
            # One link per tag, at the position of its name's first mention, made in one INSERT.
            links: dict[int, object] = {}
            for position, name in enumerate(extracted):
                tag = Tag.objects.filter(name__iexact=name).first() or Tag.objects.create(name=name)
                links.setdefault(tag.pk, self.tags.through(thing=self, tag=tag, position=position))
            self.tags.through.objects.bulk_create(links.values())


class TagFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tag

    name = factory.Sequence(lambda n: f"tag{n}")


def category(slug: str) -> Category:
    """A seeded category (migration 0002), e.g. category('replacement-parts')."""
    return Category.objects.get(slug=slug)
