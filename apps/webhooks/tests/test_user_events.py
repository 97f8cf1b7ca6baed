"""Thing and make webhook events (apps/webhooks/catalog.py): who receives them, what they carry, and that a
write with no subscribed app costs one query."""
from pathlib import Path

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.accounts.tests.factories import UserFactory
from apps.comments import services as comment_services
from apps.core.domain.exceptions import ValidationFailed
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.makes import services as make_services
from apps.oauth import services as oauth_services
from apps.oauth.tests.factories import ApplicationFactory
from apps.things import services as thing_services
from apps.things.events import thing_event
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import ProcessingStatus, ThingFile
from apps.uploads.processing import services as processing_services
from apps.webhooks import catalog, selectors, services
from apps.webhooks.models import Delivery

pytestmark = pytest.mark.django_db

THING_EVENTS = [spec.name for spec in catalog.EVENTS if spec.group != catalog.ORDERS]


@pytest.fixture
def maker(db):
    return UserFactory(username="maker")


@pytest.fixture
def app(db):
    application = ApplicationFactory(webhook_url="https://hooks.example.com/in")
    services.webhook_events_select(application=application, events=catalog.NAMES)
    return application


def _authorize(app, user):
    oauth_services.authorization_grant(application=app, user=user)


def _events(app=None):
    rows = Delivery.objects.all() if app is None else Delivery.objects.filter(application=app)
    return [(d.event, d.payload) for d in rows.order_by("id")]


# --- who receives --------------------------------------------------------------------------------


def test_the_catalog_names_every_event_the_portal_and_docs_offer():
    assert catalog.NAMES == (
        "order_created", "refund_requested", "order_refunded", "thing_created", "thing_updated",
        "thing_published", "thing_deleted", "thing_file_processed", "thing_commented", "thing_liked",
        "make_created", "make_deleted",
    )
    docs = (Path(__file__).resolve().parents[3] / "docs" / "webhooks.md").read_text()
    for spec in catalog.EVENTS:
        assert f"`{spec.name}`" in docs, spec.name


def test_an_app_the_user_authorized_receives_their_thing_created(app, maker):
    _authorize(app, maker)
    thing = thing_services.thing_create(creator=maker, name="Clip", description="d")
    [(event, payload)] = _events(app)
    assert event == "thing_created"
    assert payload["event"] == "thing_created"
    assert payload["thing"]["id"] == thing.pk
    assert payload["thing"]["is_published"] is False
    assert payload["thing"]["creator"]["name"] == "maker"
    assert payload["thing"]["url"].endswith(f"/things/{thing.pk}")


def test_apps_the_user_did_not_authorize_receive_nothing(app, maker):
    _authorize(app, UserFactory())
    thing_services.thing_create(creator=maker, name="Clip", description="d")
    assert _events() == []


def test_apps_without_a_webhook_url_receive_nothing(maker):
    application = ApplicationFactory(webhook_url="")
    services.webhook_events_select(application=application, events=catalog.NAMES)
    _authorize(application, maker)
    thing_services.thing_create(creator=maker, name="Clip", description="d")
    assert _events() == []


def test_thing_events_are_opt_in_and_only_the_chosen_ones_arrive(maker):
    never_chose = ApplicationFactory(webhook_url="https://a.example.com/in")
    chose_one = ApplicationFactory(webhook_url="https://b.example.com/in")
    services.webhook_events_select(application=chose_one, events=["thing_published"])
    for application in (never_chose, chose_one):
        _authorize(application, maker)
    thing = thing_services.thing_create(creator=maker, name="Clip", description="d")
    thing_services.thing_publish(thing=thing)
    assert _events(never_chose) == []
    assert [e for e, _ in _events(chose_one)] == ["thing_published"]


def test_revoking_the_app_stops_the_events(app, maker):
    _authorize(app, maker)
    thing = thing_services.thing_create(creator=maker, name="Clip", description="d")
    oauth_services.authorization_revoke(user=maker, application=app)
    thing_services.thing_update(thing=thing, data={"name": "Clip 2"})
    assert [e for e, _ in _events(app)] == ["thing_created"]


def test_each_app_receives_an_event_once_even_when_two_of_its_users_are_involved(app, maker):
    owner = UserFactory()
    _authorize(app, maker)
    _authorize(app, owner)
    thing = ThingFactory(creator=owner)
    make = make_services.make_create(thing=thing, creator=maker)
    assert [e for e, _ in _events(app)] == ["make_created"]
    assert _events(app)[0][1]["make"]["id"] == make.pk


def test_the_event_row_is_part_of_the_change_transaction(app, maker):
    _authorize(app, maker)
    with pytest.raises(RuntimeError), transaction.atomic():
        thing_services.thing_create(creator=maker, name="Clip", description="d")
        raise RuntimeError
    assert _events() == []


def test_a_write_with_no_subscribed_app_costs_one_query(maker):
    ApplicationFactory(webhook_url="https://a.example.com/in")  # never chose Thing events
    thing = ThingFactory(creator=maker)
    with CaptureQueriesContext(connection) as queries:
        thing_event(thing, "thing_updated", changed=["name"])
    assert len(queries) == 1


def test_the_subscribed_apps_are_read_in_one_query_however_many(maker):
    for n in range(4):
        application = ApplicationFactory(webhook_url=f"https://h{n}.example.com/in")
        services.webhook_events_select(application=application, events=["thing_updated"])
        _authorize(application, maker)
    with CaptureQueriesContext(connection) as queries:
        apps = selectors.application_list_subscribed(user_ids=[maker.pk], event="thing_updated")
    assert len(apps) == 4 and len(queries) == 1


# --- what each event carries -----------------------------------------------------------------------


def test_updated_published_and_deleted(app, maker):
    _authorize(app, maker)
    thing = ThingFactory(creator=maker, is_published=False, published_at=None)
    thing_services.thing_update(thing=thing, data={"name": "Renamed", "tags": ["clip"]})
    thing_services.thing_update(thing=thing, data={"name": "Renamed"})  # nothing changed: no event
    thing_services.thing_publish(thing=thing)
    thing_services.thing_delete(thing=thing)
    events = _events(app)
    assert [e for e, _ in events] == ["thing_updated", "thing_published", "thing_deleted"]
    assert events[0][1]["changed"] == ["name", "tags"]
    assert events[0][1]["thing"]["name"] == "Renamed"
    assert events[1][1]["thing"]["is_published"] is True
    assert events[2][1] == {"event": "thing_deleted", "thing": {"id": thing.pk, "url": events[1][1]["thing"]["url"]}}


def test_liked_once_and_commented(app, maker):
    _authorize(app, maker)
    thing = ThingFactory(creator=maker)
    fan = UserFactory(username="fan")
    thing_services.thing_like(user=fan, thing=thing)
    thing_services.thing_like(user=fan, thing=thing)  # a repeat is a no-op: no second event
    comment = comment_services.comment_create(user=fan, target=thing, body="Nice **print**")
    reply = comment_services.comment_reply(user=maker, comment=comment, body="Thanks")
    events = _events(app)
    assert [e for e, _ in events] == ["thing_liked", "thing_commented", "thing_commented"]
    assert events[0][1]["user"]["name"] == "fan"
    assert events[1][1]["comment"]["id"] == comment.pk
    assert events[1][1]["comment"]["body"] == "Nice **print**"
    assert events[1][1]["comment"]["parent_id"] is None
    assert events[2][1]["comment"]["parent_id"] == comment.pk and events[2][1]["comment"]["id"] == reply.pk


def test_file_processed(app, maker):
    _authorize(app, maker)
    thing = ThingFactory(creator=maker)
    file = ThingFile.objects.create(thing=thing, name="notes.txt", key="things/notes.txt", size=10)
    assert processing_services.file_process(file_id=file.pk) == "live"
    [(event, payload)] = _events(app)
    assert event == "thing_file_processed"
    assert payload["file"] == {"id": file.pk, "name": "notes.txt", "url": payload["file"]["url"], "status": "live",
                               "error": ""}
    assert payload["thing"]["id"] == thing.pk


def test_file_processing_failure_is_a_file_processed_event_with_the_error(app, maker):
    _authorize(app, maker)
    file = ThingFile.objects.create(thing=ThingFactory(creator=maker), name="m.stl", key="k.stl", size=10,
                                    status=ProcessingStatus.PROCESSING)
    processing_services._file_fail(file.pk, "Not an STL file.")
    [(event, payload)] = _events(app)
    assert (event, payload["file"]["status"], payload["file"]["error"]) == (
        "thing_file_processed", "failed", "Not an STL file.")


def test_make_created_and_deleted_reach_the_maker_and_the_thing_owner(maker):
    owner = UserFactory()
    owners_app = ApplicationFactory(webhook_url="https://o.example.com/in")
    makers_app = ApplicationFactory(webhook_url="https://m.example.com/in")
    for application, user in ((owners_app, owner), (makers_app, maker)):
        services.webhook_events_select(application=application, events=["make_created", "make_deleted"])
        _authorize(application, user)
    thing = ThingFactory(creator=owner)
    make = make_services.make_create(thing=thing, creator=maker, description="PETG")
    make_services.make_delete(make=make)
    for application in (owners_app, makers_app):
        events = _events(application)
        assert [e for e, _ in events] == ["make_created", "make_deleted"]
        assert events[0][1]["make"]["user"]["name"] == "maker"
        assert events[0][1]["make"]["description"] == "PETG"
        assert events[1][1]["make"] == {"id": make.pk, "url": events[0][1]["make"]["url"], "thing_id": thing.pk}


# --- moderation ------------------------------------------------------------------------------------


def test_hiding_a_thing_is_thing_deleted_then_silence_and_unhiding_is_thing_updated(app, maker):
    _authorize(app, maker)
    thing = ThingFactory(creator=maker)
    moderator = UserFactory(is_staff=True)
    moderation_hide(obj=thing, reason="spam", by=moderator)
    thing_services.thing_hidden_changed(thing=thing)
    thing_services.thing_like(user=UserFactory(), thing=thing)  # hidden: no event
    moderation_unhide(obj=thing)
    thing_services.thing_hidden_changed(thing=thing)
    events = _events(app)
    assert [e for e, _ in events] == ["thing_deleted", "thing_updated"]
    assert events[0][1] == {"event": "thing_deleted", "thing": {"id": thing.pk, "url": events[1][1]["thing"]["url"]}}
    assert "spam" not in str(events)  # the moderator's reason stays with the moderators
    assert events[1][1]["changed"] == ["is_hidden"]


def test_deleting_a_hidden_thing_sends_no_second_thing_deleted(app, maker):
    _authorize(app, maker)
    thing = ThingFactory(creator=maker)
    moderation_hide(obj=thing, reason="spam", by=UserFactory(is_staff=True))
    thing_services.thing_hidden_changed(thing=thing)
    thing_services.thing_delete(thing=thing)
    assert [e for e, _ in _events(app)] == ["thing_deleted"]


def test_hiding_a_make_is_make_deleted(maker):
    application = ApplicationFactory(webhook_url="https://m.example.com/in")
    services.webhook_events_select(application=application, events=["make_deleted"])
    _authorize(application, maker)
    make = make_services.make_create(thing=ThingFactory(), creator=maker)
    moderation_hide(obj=make, reason="spam", by=UserFactory(is_staff=True))
    make_services.make_hidden_changed(make=make)
    make_services.make_delete(make=make)  # hidden already: no second make_deleted
    assert [e for e, _ in _events(application)] == ["make_deleted"]


# --- the selection and order events -------------------------------------------------------------


def test_order_events_are_on_until_the_developer_turns_them_off(db):
    application = ApplicationFactory(webhook_url="https://h.example.com/in")
    assert selectors.application_events(application=application) == catalog.DEFAULT_EVENTS
    with transaction.atomic():
        assert services.webhook_event_record(application=application, event="order_created", payload={}) is not None
    services.webhook_events_select(application=application, events=["thing_created"])
    application.refresh_from_db()
    with transaction.atomic():
        assert services.webhook_event_record(application=application, event="order_created", payload={}) is None
        assert services.webhook_event_record(application=application, event="ping", payload={}) is not None


def test_an_unknown_event_cannot_be_chosen(db):
    application = ApplicationFactory()
    with pytest.raises(ValidationFailed):
        services.webhook_events_select(application=application, events=["thing_created", "thing_exploded"])


def test_a_user_event_must_be_in_the_catalog(db):
    with pytest.raises(ValueError):
        services.webhook_user_event_record(user_ids=[1], event="order_created", payload=dict)


def test_an_event_still_pending_when_the_user_revokes_is_not_sent(maker, receiver, allow_private):
    application = ApplicationFactory(webhook_url=receiver.url)
    services.webhook_events_select(application=application, events=["thing_created", "thing_updated"])
    _authorize(application, maker)
    thing = thing_services.thing_create(creator=maker, name="Clip", description="d")
    first = Delivery.objects.get(event="thing_created")
    assert first.subject_user_ids == [maker.pk]
    delivered = services.webhook_deliver(delivery_id=first.pk)
    assert delivered is not None and delivered.status == "succeeded"
    thing_services.thing_update(thing=thing, data={"name": "Clip 2"})
    pending = Delivery.objects.get(event="thing_updated")
    oauth_services.authorization_revoke(user=maker, application=application)
    delivered = services.webhook_deliver(delivery_id=pending.pk)
    assert delivered is not None and delivered.status == "cancelled" and "revoked" in delivered.last_error
    assert len(receiver.requests) == 1


def test_order_events_do_not_depend_on_a_consent(receiver, allow_private):
    application = ApplicationFactory(webhook_url=receiver.url)
    with transaction.atomic():
        delivery = services.webhook_event_record(application=application, event="order_created", payload={})
    assert delivery.subject_user_ids == []
    delivered = services.webhook_deliver(delivery_id=delivery.pk)
    assert delivered is not None and delivered.status == "succeeded"
