import factory
from django.contrib.auth import get_user_model


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    first_name = factory.Faker("first_name")
    last_name = factory.Faker("last_name")
    bio = "Makes things."
    location = "Earth"
    password = factory.django.Password("pass-word-123")


class MessageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "accounts.Message"

    sender = factory.SubFactory(UserFactory)
    recipient = factory.SubFactory(UserFactory)
    body = "Hello"


class FollowFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "accounts.Follow"

    follower = factory.SubFactory(UserFactory)
    followed = factory.SubFactory(UserFactory)
