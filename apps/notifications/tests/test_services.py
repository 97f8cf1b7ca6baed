"""Notifications (issue 26): who hears of what, once, never of their own action; the bell's count stays
exact; e-mails per notification or as a daily digest, never twice."""
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from apps.accounts.tests.factories import FollowFactory, UserFactory
from apps.comments import services as comment_services
from apps.comments.tests.factories import make_of
from apps.makes import services as make_services
from apps.notifications import rules, services, tasks
from apps.notifications.models import Notification
from apps.things import services as thing_services
from apps.things.models import Remix
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def kinds(user):
    return sorted(Notification.objects.filter(recipient=user).values_list("kind", flat=True))


def unread(user):
    user.refresh_from_db(fields=["notifications_unread"])
    return user.notifications_unread


def test_a_like_tells_the_creator_once_even_after_unlike_and_like_again():
    thing = ThingFactory()
    fan = UserFactory()
    thing_services.thing_like(user=fan, thing=thing)
    thing_services.thing_unlike(user=fan, thing=thing)
    thing_services.thing_like(user=fan, thing=thing)
    assert kinds(thing.creator) == ["like"]
    assert unread(thing.creator) == 1
    n = Notification.objects.get(recipient=thing.creator)
    assert rules.notification_sentence(n) == f"{fan.username} liked your Thing “{thing.name}”."
    assert n.url == f"/thing:{thing.pk}"


def test_a_comment_and_a_reply_tell_the_owner_and_the_author_replied_to():
    thing = ThingFactory()
    first, second = UserFactory(), UserFactory()
    top = comment_services.comment_create(user=first, target=thing, body="Nice")
    comment_services.comment_reply(user=second, comment=top, body="Agreed")
    assert kinds(thing.creator) == ["comment", "comment"]
    assert kinds(first) == ["reply"]
    assert kinds(second) == []
    assert unread(thing.creator) == 2


def test_nobody_is_notified_of_their_own_action():
    thing = ThingFactory()
    own = comment_services.comment_create(user=thing.creator, target=thing, body="Tip: use PETG")
    comment_services.comment_reply(user=thing.creator, comment=own, body="And a brim")
    make_of(thing, creator=thing.creator)
    assert Notification.objects.count() == 0
    assert unread(thing.creator) == 0


def test_a_make_tells_the_things_creator():
    thing = ThingFactory()
    maker = UserFactory()
    make = make_services.make_create(thing=thing, creator=maker)
    n = Notification.objects.get(recipient=thing.creator)
    assert (n.kind, n.actor, n.url) == ("make", maker, f"/make:{make.pk}")


def test_publishing_tells_followers_and_the_remixed_creators_once(django_capture_on_commit_callbacks):
    author, fan, inactive = UserFactory(), UserFactory(), UserFactory(is_active=False)
    FollowFactory(follower=fan, followed=author)
    FollowFactory(follower=inactive, followed=author)
    original = ThingFactory()
    thing = ThingFactory(creator=author, is_published=False, published_at=None)
    Remix.objects.create(derivative=thing, ancestor=original)
    with django_capture_on_commit_callbacks(execute=True):
        thing_services.thing_publish(thing=thing)
    assert kinds(fan) == ["new_thing"]
    assert kinds(original.creator) == ["remix"]
    assert kinds(inactive) == [] and kinds(author) == []
    # The task run again (a redelivery) adds nothing, and the counts stay.
    assert thing_services.thing_published_notify(thing_id=thing.pk) == 0
    assert unread(fan) == 1 and unread(original.creator) == 1


def test_a_hidden_or_unpublished_thing_tells_nobody():
    author, fan = UserFactory(), UserFactory()
    FollowFactory(follower=fan, followed=author)
    hidden = ThingFactory(creator=author, is_hidden=True)
    draft = ThingFactory(creator=author, is_published=False)
    assert thing_services.thing_published_notify(thing_id=hidden.pk) == 0
    assert thing_services.thing_published_notify(thing_id=draft.pk) == 0
    assert kinds(fan) == []


def test_marking_read_moves_the_bell_exactly():
    user, actor = UserFactory(), UserFactory()
    for i in range(3):
        services.notification_send(recipient=user, actor=actor, kind="like", key=f"k{i}", subject="S")
    assert unread(user) == 3
    first = Notification.objects.filter(recipient=user).earliest("pk")
    services.notification_mark_read(notification=first)
    services.notification_mark_read(notification=first)  # again: no-op
    assert unread(user) == 2
    assert services.notifications_mark_all_read(user=user) == 2
    assert unread(user) == 0
    assert services.notifications_mark_all_read(user=user) == 0 and unread(user) == 0


def test_each_notification_is_mailed_once_to_those_who_asked(django_capture_on_commit_callbacks):
    user = UserFactory(notify_email="each")
    with django_capture_on_commit_callbacks(execute=True):
        pk = services.notification_send(recipient=user, actor=UserFactory(username="fan1"), kind="like",
                                        key="like:1", subject="Cube", url="/thing:1")
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [user.email] and "fan1 liked your Thing “Cube”" in mail.outbox[0].body
    assert "/thing:1" in mail.outbox[0].body
    tasks.notification_email_send(pk)  # a second delivery of the task
    assert len(mail.outbox) == 1


def test_daily_digest_members_get_one_mail_with_everything_and_never_twice(django_capture_on_commit_callbacks):
    daily, none = UserFactory(notify_email="daily"), UserFactory(notify_email="none")
    actor = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        for user in (daily, none):
            services.notification_send(recipient=user, actor=actor, kind="like", key="a", subject="One")
            services.notification_send(recipient=user, actor=actor, kind="comment", key="b", subject="Two")
    assert mail.outbox == []  # nothing at once for the digest or for none
    with django_capture_on_commit_callbacks(execute=True):
        tasks.notifications_digest_enqueue_all()
    assert len(mail.outbox) == 1
    digest = mail.outbox[0]
    assert digest.to == [daily.email] and "2 new notifications" in digest.subject
    assert "“One”" in digest.body and "“Two”" in digest.body
    with django_capture_on_commit_callbacks(execute=True):
        tasks.notifications_digest_enqueue_all()
    assert services.notifications_digest_send(user_id=daily.pk) == 0
    assert len(mail.outbox) == 1


def test_a_failed_send_gives_the_claim_back(monkeypatch):
    user = UserFactory(notify_email="daily")
    services.notification_send(recipient=user, actor=UserFactory(), kind="like", key="a", subject="One")

    def broken(**kwargs):
        raise OSError("mail server down")

    monkeypatch.setattr(services, "send_mail", broken)
    with pytest.raises(OSError):
        services.notifications_digest_send(user_id=user.pk)
    assert Notification.objects.get(recipient=user).emailed_at is None
    monkeypatch.undo()
    assert services.notifications_digest_send(user_id=user.pk) == 1


def test_the_digest_leaves_out_read_and_old_notifications():
    user = UserFactory(notify_email="daily")
    actor = UserFactory()
    services.notification_send(recipient=user, actor=actor, kind="like", key="old", subject="Old")
    services.notification_send(recipient=user, actor=actor, kind="like", key="read", subject="Read")
    Notification.objects.filter(key="old").update(created=timezone.now() - timedelta(days=rules.DIGEST_WINDOW_DAYS + 1))
    Notification.objects.filter(key="read").update(read_at=timezone.now())
    assert services.notifications_digest_send(user_id=user.pk) == 0
    assert mail.outbox == []


def test_a_moderators_hide_becomes_a_notification_with_the_reason():
    from apps.reports import services as report_services

    moderator = UserFactory(is_staff=True)
    thing = ThingFactory(name="Knock-off Vase")
    report_services.item_hide(kind="thing", item=thing, reason="A copy.", moderator=moderator)
    n = Notification.objects.get(recipient=thing.creator)
    assert n.kind == "moderation" and n.actor is None
    assert "Reason: A copy." in n.body and n.subject == "Knock-off Vase"
    assert unread(thing.creator) == 1


def test_a_large_fan_out_goes_in_batches_and_counts_each_recipient_once(monkeypatch):
    monkeypatch.setattr(services, "INSERT_BATCH", 2)
    author = UserFactory()
    fans = [UserFactory() for _ in range(5)]
    ids = [fan.pk for fan in fans] + [author.pk]
    assert services.notification_send_many(recipient_ids=ids, actor=author, kind="new_thing", key="new_thing:1",
                                           subject="Big") == 5
    assert services.notification_send_many(recipient_ids=ids, actor=author, kind="new_thing", key="new_thing:1",
                                           subject="Big") == 0
    assert [unread(fan) for fan in fans] == [1] * 5 and unread(author) == 0


def test_beat_sends_the_digest_daily_through_the_real_task(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["notifications-daily-digest"]
    assert entry["task"] == tasks.notifications_digest_enqueue_all.name
    assert entry["schedule"].hour == {7} and entry["schedule"].minute == {0}
