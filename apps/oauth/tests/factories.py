from datetime import timedelta

import factory
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.accounts.tests.factories import UserFactory
from apps.oauth.tokens import generate_token

# The plain client secret of every factory app (DOT stores only its hash).
APP_SECRET = "test-client-secret-0123456789"


class ApplicationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_application_model()

    name = factory.Sequence(lambda n: f"App {n}")
    description = "A test application"
    app_type = "web"
    info_url = "https://app.example.com/about"
    application_url = "https://app.example.com"
    redirect_uris = "https://app.example.com/callback"
    client_type = "confidential"
    authorization_grant_type = "authorization-code"
    client_secret = APP_SECRET
    approval_state = "approved"
    user = factory.SubFactory(UserFactory)
    # Recently used, so a test's API calls do not stamp it (apps.oauth.usage) unless the test says so.
    last_used_at = factory.LazyFunction(timezone.now)


class AccessTokenFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_access_token_model()

    user = factory.SubFactory(UserFactory)
    application = factory.SubFactory(ApplicationFactory)
    token = factory.LazyFunction(generate_token)
    expires = factory.LazyFunction(lambda: timezone.now() + timedelta(days=1))
    scope = "read write"
