"""Reads for the developer portal: an owner sees only their own applications."""
from django.db.models import Count, QuerySet
from oauth2_provider.models import AbstractApplication, get_access_token_model, get_application_model

from apps.core.domain.exceptions import NotFound
from apps.developers.rules import READONLY_TOKEN_SCOPE
from apps.oauth import selectors as oauth_selectors

Application = get_application_model()
AccessToken = get_access_token_model()


def application_list_for_owner(*, owner) -> QuerySet:
    """The owner's apps, newest first, each annotated with `user_count` (authorized users) in one query."""
    return (
        Application.objects.filter(user=owner)
        .select_related("review_request")
        .annotate(user_count=Count("authorizations", distinct=True))
        .order_by("-created", "-pk")
    )


def application_get_for_owner(*, owner, pk) -> AbstractApplication:
    """The owner's app; NotFound for anyone else's (an app's existence is not revealed to others)."""
    if owner is None or not owner.is_authenticated:
        raise NotFound()
    try:
        return Application.objects.select_related("review_request").get(pk=pk, user=owner)
    except (Application.DoesNotExist, ValueError, TypeError):
        raise NotFound() from None


def application_user_count(*, application) -> int:
    """Users who authorized the app (spec §8: at most 10 while unapproved), as the OAuth limit counts them."""
    return oauth_selectors.application_user_count(application=application)


def application_readonly_token_get(*, application):
    """The app's current read-only token (docs/decisions.md: a token of the app itself, no user), or None."""
    return (
        AccessToken.objects.filter(application=application, user__isnull=True, scope=READONLY_TOKEN_SCOPE)
        .order_by("-created", "-pk")
        .first()
    )
