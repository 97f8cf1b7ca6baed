import factory

from apps.accounts.tests.factories import UserFactory
from apps.groups.models import Group, GroupMember, GroupTopic


class GroupFactory(factory.django.DjangoModelFactory):
    """A group whose creator is already its owning member, as services.group_create leaves it."""

    class Meta:
        model = Group
        skip_postgeneration_save = True  # the hook adds a membership row; the group needs no re-save

    creator = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Printer fans {n}")
    slug = factory.Sequence(lambda n: f"printer-fans-{n}")
    description = "People who print."

    @factory.post_generation
    def owner_membership(group, create, extracted, **kwargs):
        if create:
            GroupMember.objects.create(group=group, user=group.creator)


class GroupTopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GroupTopic

    group = factory.SubFactory(GroupFactory)
    user = factory.SelfAttribute("group.creator")
    name = factory.Sequence(lambda n: f"Topic {n}")
    body = "Let us talk."
