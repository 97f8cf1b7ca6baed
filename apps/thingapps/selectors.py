"""Reads of Thing apps and of the SDK host's dialogs, restricted to what the user may see.

Dialog lists reuse the owning apps' selectors (Things, collections, search, uploads), so visibility and
moderation rules live in one place each.
"""

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Lower
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.core.pipeline.api import MAX_ID
from apps.core.domain.exceptions import DomainError, NotFound
from apps.core.domain.moderation import visible_q
from apps.makes.models import Make
from apps.oauth.models import AppAuthorization
from apps.search.selectors import SearchParams, thing_search
from apps.thingapps import rules
from apps.thingcollections.selectors import thing_list_collected_by
from apps.things import selectors as thing_selectors
from apps.uploads.files.selectors import thing_file_list


def _listed_q() -> Q:
    return Q(app_type="thing", approval_state="approved") & ~Q(application_url="")


def thing_app_list_for_viewer(*, viewer, site_urls: list[str]) -> list:
    """The approved Thing apps a signed-in viewer may open on a Thing page, alphabetical, each with
    `is_authorized` (the viewer's consent): one query. Anonymous visitors get none, without a query."""
    if viewer is None or not viewer.is_authenticated:
        return []
    consent = AppAuthorization.objects.filter(application=OuterRef("pk"), user=viewer)
    apps = (
        get_application_model()
        .objects.filter(_listed_q())
        .annotate(is_authorized=Exists(consent))
        .only("id", "client_id", "name", "description", "application_url", "app_type", "approval_state")
        .order_by(Lower("name"), "id")[: rules.THING_APP_LIST_MAX]
    )
    return [app for app in apps if _embeddable(app, site_urls)]


def thing_app_get(client_id, *, site_urls: list[str]):
    """The listed, embeddable Thing app with this client id; 404 for any other app."""
    if not isinstance(client_id, str) or not client_id or "\x00" in client_id or len(client_id) > 100:
        raise NotFound()
    app = get_application_model().objects.filter(_listed_q(), client_id=client_id).first()
    if app is None or not _embeddable(app, site_urls):
        raise NotFound()
    return app


def _embeddable(app, site_urls) -> bool:
    listed = rules.thing_app_is_listed(
        app_type=app.app_type, approval_state=app.approval_state, application_url=app.application_url
    )
    return listed and not rules.thing_app_embed_blockers(
        application_url=app.application_url, site_urls=site_urls
    )


def site_urls_for(request) -> list[str]:
    """The origins the host page is served from: {site_url} and the request's own host."""
    return [settings.SITE_URL, request.build_absolute_uri("/")]


def host_token_get_live(*, application, user, now=None):
    """The newest token the host issued to `application` for `user` that still has enough time left."""
    now = now or timezone.now()
    return (
        get_access_token_model()
        .objects.filter(
            application=application,
            user=user,
            thing_app_host__isnull=False,
            expires__gt=now + rules.HOST_TOKEN_MIN_REMAINING,
        )
        .select_related("thing_app_host")
        .order_by("-expires", "-id")
        .first()
    )


def host_token_belongs(*, token, client_id: str, user) -> bool:
    """spec §4.11 host check: `token` is a live token of the app `client_id` for `user`."""
    from apps.oauth.selectors import access_token_get_active

    if not isinstance(token, str) or not token or len(token) > 255:
        return False
    access_token = access_token_get_active(token=token)
    return (
        access_token is not None
        and access_token.application is not None
        and access_token.application.client_id == client_id
        and access_token.user_id == user.pk
    )


# --- dialogs ---------------------------------------------------------------------------------------


def id_parse(value) -> int | None:
    """A positive database id from a query or form value, or None."""
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if 0 < number <= MAX_ID else None


def dialog_thing_get(thing_id, *, viewer):
    """The Thing a dialog is about: 404 for anything the viewer may not see (as the Thing page does)."""
    number = id_parse(thing_id)
    if number is None:
        raise NotFound()
    try:
        return thing_selectors.thing_get_for_viewer(number, viewer=viewer, detail=False)
    except DomainError:
        raise NotFound() from None


def dialog_file_list(*, thing, viewer, extensions: list[str]) -> QuerySet:
    """file_select: the Thing's files the viewer may see, filtered by extension (ignoring case)."""
    files = thing_file_list(thing=thing, viewer=viewer)
    if extensions:
        matches = Q()
        for extension in extensions:
            matches |= Q(name__iendswith="." + extension)
        files = files.filter(matches)
    return files


def thing_list_made_by(*, user, viewer) -> QuerySet:
    """The Things `user` posted a make of, each once, the most recent make first."""
    makes = Make.objects.filter(visible_q(viewer), creator=user)
    last_made = Subquery(makes.filter(thing=OuterRef("pk")).order_by("-added").values("added")[:1])
    return (
        thing_selectors.thing_list_visible(viewer=viewer)
        .filter(pk__in=makes.values("thing_id"))
        .annotate(last_made=last_made)
        .order_by("-last_made", "-id")
    )


def dialog_thing_select_list(*, user, filter_name: str) -> QuerySet:
    """thing_select: the user's Things by `filter_name` (rules.THING_SELECT_FILTERS), newest first."""
    if filter_name == "made":
        return thing_list_made_by(user=user, viewer=user)
    if filter_name == "collected":
        return thing_list_collected_by(user=user, viewer=user)
    if filter_name == "liked":
        return thing_selectors.thing_list_liked_by(user=user, viewer=user)
    return thing_selectors.thing_list_for_user(owner=user, viewer=user)


def dialog_thing_search(*, term: str, viewer):
    """thing_search: published Things matching `term` by relevance (all, newest first, when empty)."""
    return thing_search(term=term, viewer=viewer, params=SearchParams())
