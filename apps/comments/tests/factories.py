"""Comments made directly (counters untouched, no events): use the services where a test is about
comment_count, events or threads' rules."""
import factory

from apps.accounts.tests.factories import UserFactory
from apps.comments.markup import comment_body_render
from apps.comments.models import Comment
from apps.groups.models import GroupMember
from apps.makes.models import Make
from apps.things.tests.factories import ThingFactory


class CommentFactory(factory.django.DjangoModelFactory):
    """A top-level comment on a Thing; pass `parent=` for a reply (same target, one level deeper)."""

    class Meta:
        model = Comment

    parent = None
    target_type = factory.Maybe(
        "parent", factory.SelfAttribute("parent.target_type"), Comment.TargetType.THING
    )
    thing = factory.Maybe("parent", factory.SelfAttribute("parent.thing"), factory.SubFactory(ThingFactory))
    make = factory.Maybe("parent", factory.SelfAttribute("parent.make"), None)
    topic = factory.Maybe("parent", factory.SelfAttribute("parent.topic"), None)
    depth = factory.Maybe("parent", factory.LazyAttribute(lambda o: o.parent.depth + 1), 0)
    user = factory.SubFactory(UserFactory)
    body = factory.Sequence(lambda n: f"Nice print, **number {n}**.")
    body_html = factory.LazyAttribute(lambda o: comment_body_render(o.body))
    counted = True


def make_of(thing=None, **kwargs) -> Make:
    """A make (copy) of `thing` (a new published Thing by default)."""
    creator = kwargs.pop("creator", None) or UserFactory()
    return Make.objects.create(thing=thing or ThingFactory(), creator=creator, **kwargs)


def join(group, user) -> None:
    GroupMember.objects.get_or_create(group=group, user=user)
