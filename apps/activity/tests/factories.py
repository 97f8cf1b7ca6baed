import factory

from apps.accounts.tests.factories import UserFactory


class EventFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "activity.Event"

    recipient = factory.SubFactory(UserFactory)
    actor = factory.SubFactory(UserFactory)
    # A new follower by default: its target is the follower (accounts.services.user_follow).
    kind = "follow"
    target_type = "user"
    target_id = factory.LazyAttribute(lambda event: event.actor.pk)
