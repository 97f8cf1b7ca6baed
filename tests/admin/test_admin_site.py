"""The Django admin as moderators use it (issue 16): every record named by what it is, "View on site" working
wherever it is offered, only the models moderators use, staff only, the moderation dashboard, and the
banner staff see on the site for hidden items."""
import re
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group as AuthGroup
from django.contrib.auth.models import Permission
from django.db import models, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from oauth2_provider.models import get_refresh_token_model

from apps.accounts.tests.factories import FollowFactory, MessageFactory, UserFactory
from apps.notifications.models import Notification
from apps.activity.tests.factories import EventFactory
from apps.comments.tests.factories import CommentFactory
from apps.core.domain.moderation import moderation_hide
from apps.groups.tests.factories import GroupTopicFactory
from apps.makes.tests.factories import MakeFactory
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory
from apps.orders.tests.factories import OrderFactory
from apps.reports.models import Appeal, Report
from apps.thingcollections.tests.factories import CollectionFactory
from apps.things.tests.factories import TagFactory, ThingFactory
from apps.uploads.models import Upload
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory
from apps.webhooks import services as webhook_services
from apps.webhooks.models import Attempt, Delivery

pytestmark = pytest.mark.django_db

# The models whose admin page offers "View on site", and nothing else: each has a page on the site.
OFFERS_VIEW_ON_SITE = {
    "accounts.User", "comments.Comment", "groups.Group", "groups.GroupTopic", "makes.Make",
    "thingcollections.Collection", "things.Category", "things.Tag", "things.Thing", "uploads.Image",
    "uploads.ThingFile",
}
# What moderators use; DOT's Grant and IDToken and the exchanged-code log are the OAuth flows' own.
REGISTERED = OFFERS_VIEW_ON_SITE | {
    "accounts.Follow", "accounts.Message", "activity.Event", "auth.Group", "oauth.AppAuthorization",
    "oauth.Application", "oauth2_provider.AccessToken", "oauth2_provider.RefreshToken", "orders.Order",
    "uploads.Upload", "webhooks.Attempt", "webhooks.Delivery", "reports.Report", "reports.Appeal",
    "notifications.Notification",
}


@pytest.fixture
def superuser_client(db):
    client = Client()
    client.force_login(UserFactory(username="chief", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def world(db):
    """One record of every model registered in the admin."""
    thing = ThingFactory(tags=["clip"])
    app = ApplicationFactory(webhook_url="https://hooks.example.com/in")
    user = thing.creator
    FollowFactory()
    MessageFactory()
    EventFactory()
    Notification.objects.create(recipient=user, actor=FollowFactory().follower, kind="like", key="like:1",
                                subject=thing.name, url=f"/thing:{thing.pk}")
    AuthGroup.objects.create(name="Moderators")
    CommentFactory(thing=thing)
    topic = GroupTopicFactory()
    CommentFactory(thing=None, make=None, topic=topic, target_type="group_topic")
    MakeFactory(thing=thing)
    AppAuthorization.objects.create(application=app, user=user)
    access = AccessTokenFactory(application=app, user=user)
    get_refresh_token_model().objects.create(user=user, application=app, token="r" * 32, access_token=access)
    OrderFactory(thing=thing, application=app)
    CollectionFactory()
    TagFactory()
    ImageFactory(thing=thing)
    ThingFileFactory(thing=thing)
    Upload.objects.create(owner=user, kind="thing_file", target_id=thing.pk, filename="a.stl",
                          content_type="model/stl", key="uploads/x/a.stl", expires_at=timezone.now())
    Report.objects.create(reporter=FollowFactory().follower, kind="thing", target_id=thing.pk, owner=user,
                          reason="spam")
    Appeal.objects.create(owner=user, kind="thing", target_id=thing.pk, hidden_at=timezone.now(),
                          hidden_reason="Spam", text="It is not.")
    with transaction.atomic():
        delivery = webhook_services.webhook_event_record(application=app, event="order_created", payload={})
    Attempt.objects.create(delivery=delivery, number=1, url=app.webhook_url, started_at=timezone.now(),
                           status_code=500)
    return {"thing": thing, "app": app}


def _label(model) -> str:
    return model._meta.label


# --- names ---------------------------------------------------------------------------------------


def test_the_admin_registers_only_what_moderators_use():
    assert {_label(model) for model in admin.site._registry} == REGISTERED


def test_every_record_in_the_admin_is_named_by_what_it_is():
    inlines = {inline.model for model_admin in admin.site._registry.values() for inline in model_admin.inlines}
    for model in {*admin.site._registry, *inlines}:
        own_str = next(c for c in model.__mro__ if "__str__" in c.__dict__)
        assert own_str is not models.Model, f"{_label(model)} has no __str__"
        plural = str(model._meta.verbose_name_plural)
        assert not re.search(r"[^aeiou]ys$", plural), f"{_label(model)}: {plural}"


def test_every_change_page_opens_and_names_its_record(superuser_client, world):
    for model in admin.site._registry:
        obj = model._default_manager.order_by("pk").first()
        assert obj is not None, f"the world fixture has no {_label(model)}"
        opts = model._meta
        response = superuser_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
        assert response.status_code == 200, _label(model)
        assert " object (" not in response.content.decode(), _label(model)


# --- view on site --------------------------------------------------------------------------------


def test_view_on_site_works_wherever_the_admin_offers_it(superuser_client, world):
    offered = set()
    for model, model_admin in admin.site._registry.items():
        obj = model._default_manager.order_by("pk").first()
        assert obj is not None, f"the world has no {model.__name__}"
        opts = model._meta
        page = superuser_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
        link = re.search(r'href="([^"]+)" class="viewsitelink"', page.content.decode())
        if link is None:
            assert model_admin.get_view_on_site_url(obj) is None, _label(model)
            continue
        offered.add(_label(model))
        response = superuser_client.get(link.group(1).replace("&amp;", "&"), follow=True)
        assert response.status_code == 200, (_label(model), link.group(1))
    assert offered == OFFERS_VIEW_ON_SITE


def test_an_applications_page_no_longer_fails_on_view_on_site(superuser_client, world):
    app = world["app"]
    response = superuser_client.get(reverse("admin:oauth_application_change", args=[app.pk]))
    assert response.status_code == 200
    assert "viewsitelink" not in response.content.decode()
    assert app.get_absolute_url() == f"/developers/apps/{app.pk}/"


# --- staff only ----------------------------------------------------------------------------------


def test_every_admin_page_and_action_is_for_staff_with_the_permission_only(world):
    plain = Client()
    plain.force_login(UserFactory())
    staff = Client()
    staff.force_login(UserFactory(is_staff=True))  # staff, but no permission on anything
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        obj = model._default_manager.order_by("pk").first()
        before = model._default_manager.count()
        response = plain.get(changelist)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], _label(model)
        assert staff.get(changelist).status_code == 403, _label(model)
        for action in model_admin.actions or ():
            assert obj is not None, f"the world has no {model.__name__}"
            name = action if isinstance(action, str) else action.__name__
            for client in (plain, staff):
                response = client.post(changelist, {"action": name, "_selected_action": [obj.pk], "apply": "1",
                                                    "reason": "spam"})
                assert response.status_code in (302, 403), (_label(model), name)
                if response.status_code == 302:
                    assert "/admin/login/" in response["Location"], (_label(model), name)
        assert model._default_manager.count() == before
    assert not Delivery.objects.exclude(status="pending").exists()  # no redelivery or other write happened


# --- approve and reject from the application's page ----------------------------------------------


@pytest.fixture
def pending_app(db):
    return ApplicationFactory(name="Print Farm", approval_state="pending")


def _change(app):
    return reverse("admin:oauth_application_change", args=[app.pk])


def test_the_application_page_offers_approve_and_reject(superuser_client, pending_app):
    html = superuser_client.get(_change(pending_app)).content.decode()
    assert 'id="app-approve"' in html and 'id="app-reject"' in html


def test_approving_from_the_application_page(superuser_client, pending_app):
    assert superuser_client.get(reverse("admin:oauth_application_approve", args=[pending_app.pk])).status_code == 405
    response = superuser_client.post(reverse("admin:oauth_application_approve", args=[pending_app.pk]))
    assert response.status_code == 302 and response["Location"] == _change(pending_app)
    pending_app.refresh_from_db()
    assert pending_app.approval_state == "approved" and pending_app.reviewed_by.username == "chief"


def test_rejecting_from_the_application_page_needs_a_reason(superuser_client, pending_app):
    url = reverse("admin:oauth_application_reject", args=[pending_app.pk])
    assert 'id="reject-form"' in superuser_client.get(url).content.decode()
    assert superuser_client.post(url, {"reason": "   "}).status_code == 400
    pending_app.refresh_from_db()
    assert pending_app.approval_state == "pending"
    response = superuser_client.post(url, {"reason": "The description says nothing."})
    assert response.status_code == 302 and response["Location"] == _change(pending_app)
    pending_app.refresh_from_db()
    assert (pending_app.approval_state, pending_app.approval_reason) == ("rejected", "The description says nothing.")


def test_reviewing_an_unknown_application_is_404(superuser_client):
    assert superuser_client.post(reverse("admin:oauth_application_approve", args=[999999])).status_code == 404


def test_staff_who_may_only_view_applications_cannot_review_them(pending_app):
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_application"))
    client = Client()
    client.force_login(viewer)
    html = client.get(_change(pending_app)).content.decode()
    assert 'id="app-approve"' not in html
    assert client.post(reverse("admin:oauth_application_approve", args=[pending_app.pk])).status_code == 403
    assert client.post(reverse("admin:oauth_application_reject", args=[pending_app.pk]),
                       {"reason": "no"}).status_code == 403
    pending_app.refresh_from_db()
    assert pending_app.approval_state == "pending"


def test_non_staff_cannot_review(client, pending_app):
    client.force_login(UserFactory())
    response = client.post(reverse("admin:oauth_application_approve", args=[pending_app.pk]))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    pending_app.refresh_from_db()
    assert pending_app.approval_state == "pending"


def test_reviewing_needs_the_csrf_token(pending_app):
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert client.post(reverse("admin:oauth_application_approve", args=[pending_app.pk])).status_code == 403
    pending_app.refresh_from_db()
    assert pending_app.approval_state == "pending"


# --- the dashboard ------------------------------------------------------------------------------


def test_the_admin_index_links_to_the_dashboard(superuser_client):
    html = superuser_client.get(reverse("admin:index")).content.decode()
    assert reverse("moderation-dashboard") in html
    for hidden in ("/admin/oauth2_provider/grant/", "/admin/oauth2_provider/idtoken/", "/admin/oauth/authorizationcodeuse/"):
        assert hidden not in html


def test_the_dashboard_shows_apps_in_review_hidden_content_and_failing_endpoints(superuser_client, world):
    from apps.developers import services as developer_services

    owner = UserFactory()
    submitted = ApplicationFactory(name="Awaiting Review App", user=owner, approval_state="pending")
    developer_services.application_submit_for_review(application=submitted, submitted_by=owner)
    ApplicationFactory(name="Private Draft App", approval_state="pending")  # not submitted: not listed
    moderator = UserFactory(username="mod_ann", is_staff=True)
    moderation_hide(obj=world["thing"], reason="Copied from someone else", by=moderator)
    broken = ApplicationFactory(name="Broken Endpoint App", webhook_url="https://down.example.com/in")
    with transaction.atomic():
        failed = webhook_services.webhook_event_record(application=broken, event="order_created", payload={})
    Delivery.objects.filter(pk=failed.pk).update(status="failed", attempt_count=12, last_error="HTTP 500")
    gone = ApplicationFactory(name="Gone App", webhook_url="https://gone.example.com/in",
                              webhook_disabled_at=timezone.now() - timedelta(hours=1),
                              webhook_disabled_reason="https://gone.example.com/in answered 410 Gone")

    html = superuser_client.get(reverse("moderation-dashboard")).content.decode()
    review = html[html.index('id="panel-apps-review"'):]
    assert "Awaiting Review App" in review[:review.index("</div>")] and "Private Draft App" not in html
    hidden = html[html.index('id="panel-hidden"'):]
    assert world["thing"].name in hidden and "Copied from someone else" in hidden and "mod_ann" in hidden
    assert reverse("thing-page", args=[world["thing"].pk]) in hidden
    failing = html[html.index('id="panel-webhooks-failing"'):]
    failing = failing[:failing.index("</div>")]
    assert "Broken Endpoint App" in failing and "Gone App" in failing and "410 Gone" in failing
    assert f"application__id__exact={gone.pk}" in failing


def test_the_dashboards_hidden_items_link_to_the_site_only_where_the_page_answers(superuser_client, db):
    # A hidden Thing's page still answers for staff; a hidden draft's is its creator's alone (the admin's
    # "View on site" rule: apps.core.adminkit.sitelink).
    moderator = UserFactory(is_staff=True)
    published = ThingFactory(name="Hidden Published", is_published=True)
    draft = ThingFactory(name="Hidden Draft", is_published=False)
    for thing in (published, draft):
        moderation_hide(obj=thing, reason="Crawled.", by=moderator)
    html = superuser_client.get(reverse("moderation-dashboard")).content.decode()
    hidden = html[html.index('id="panel-hidden"'):]
    rows = {name: hidden[hidden.index(name):].split("</tr>", 1)[0] for name in ("Hidden Published", "Hidden Draft")}
    assert f'href="{reverse("thing-page", args=[published.pk])}">View on site' in rows["Hidden Published"]
    assert "View on site" not in rows["Hidden Draft"]
    assert superuser_client.get(reverse("thing-page", args=[draft.pk])).status_code == 404


def test_the_dashboard_is_for_staff_and_shows_only_what_they_may_view(world):
    moderation_hide(obj=world["thing"], reason="spam", by=None)
    anonymous = Client()
    assert "/admin/login/" in anonymous.get(reverse("moderation-dashboard"))["Location"]
    plain = Client()
    plain.force_login(UserFactory())
    assert "/admin/login/" in plain.get(reverse("moderation-dashboard"))["Location"]
    staff = UserFactory(is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_delivery"))
    client = Client()
    client.force_login(staff)
    html = client.get(reverse("moderation-dashboard")).content.decode()
    assert 'id="panel-webhooks-failing"' in html
    assert 'id="panel-apps-review"' not in html
    assert world["thing"].name not in html  # may not view Things: their hidden rows are left out


# --- the banner on the site ---------------------------------------------------------------------


def test_staff_see_why_a_thing_and_a_comment_are_hidden_on_the_site(superuser_client, db):
    moderator = UserFactory(username="mod_bea", is_staff=True)
    thing = ThingFactory()
    comment = CommentFactory(thing=thing, body="Buy my stuff")
    moderation_hide(obj=thing, reason="Stolen design", by=moderator)
    moderation_hide(obj=comment, reason="Advertising", by=moderator)
    html = superuser_client.get(reverse("thing-page", args=[thing.pk])).content.decode()
    banners = re.findall(r'<div class="alert alert-warning moderation-banner".*?</div>', html, re.S)
    assert len(banners) == 2
    assert f'data-hidden-banner="{thing.pk}"' in banners[0] and "Stolen design" in banners[0]
    assert "mod_bea" in banners[0]
    assert f'data-hidden-banner="{comment.pk}"' in banners[1] and "Advertising" in banners[1]


def test_no_banner_for_what_is_not_hidden(superuser_client, db):
    thing = ThingFactory()
    CommentFactory(thing=thing)
    assert "moderation-banner" not in superuser_client.get(reverse("thing-page", args=[thing.pk])).content.decode()


def test_a_hidden_thing_stays_gone_for_everyone_else(client, db):
    thing = ThingFactory(description="The whole secret recipe.")
    moderation_hide(obj=thing, reason="Stolen design", by=None)
    client.force_login(UserFactory())
    assert client.get(reverse("thing-page", args=[thing.pk])).status_code == 404
    # Its owner is told why and may appeal (issue 26), but the Thing's content is not served there.
    client.force_login(thing.creator)
    page = client.get(reverse("thing-page", args=[thing.pk])).content.decode()
    assert "Stolen design" in page and "Appeal this decision" in page
    assert "The whole secret recipe." not in page


# --- the actions no app's own tests cover ------------------------------------------------------


def _run_action(client, model, action, pks):
    opts = model._meta
    return client.post(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"),
                       {"action": action, "_selected_action": pks})


def test_moderators_feature_and_unfeature_collections(superuser_client, db):
    collection = CollectionFactory()
    assert _run_action(superuser_client, type(collection), "feature_collections", [collection.pk]).status_code == 302
    collection.refresh_from_db()
    assert collection.is_featured
    _run_action(superuser_client, type(collection), "unfeature_collections", [collection.pk])
    collection.refresh_from_db()
    assert not collection.is_featured


def test_moderators_revoke_access_and_refresh_tokens(superuser_client, db):
    from oauth2_provider.models import get_access_token_model

    app = ApplicationFactory()
    user = UserFactory()
    access = AccessTokenFactory(application=app, user=user)
    other = AccessTokenFactory(application=app, user=user)
    refresh = get_refresh_token_model().objects.create(user=user, application=app, token="r" * 32, access_token=other)
    assert _run_action(superuser_client, get_access_token_model(), "revoke_tokens", [access.pk]).status_code == 302
    assert not get_access_token_model().objects.filter(pk=access.pk).exists()
    assert _run_action(superuser_client, type(refresh), "revoke_tokens", [refresh.pk]).status_code == 302
    refresh.refresh_from_db()
    assert refresh.revoked is not None
    assert not get_access_token_model().objects.filter(pk=other.pk).exists()  # revoked with its refresh token
