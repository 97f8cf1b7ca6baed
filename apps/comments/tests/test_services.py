"""Comment services: counters, events, placeholders, moderation hooks, account deletion, concurrency."""
import threading
from collections.abc import Callable
from functools import partial

import pytest
from django.db import connection

from apps.activity.models import Event
from apps.accounts.tests.factories import UserFactory
from apps.comments import rules, services
from apps.comments.models import Comment
from apps.comments.tests.factories import CommentFactory, join, make_of
from apps.core.domain.exceptions import NotFound, PermissionDenied, RuleViolation
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.groups.models import GroupTopic
from apps.groups.tests.factories import GroupTopicFactory
from apps.makes.models import Make
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory


def count_of(target) -> int:
    return type(target).objects.values_list("comment_count", flat=True).get(pk=target.pk)


def visible_count(target) -> int:
    field = {Thing: "thing", Make: "make", GroupTopic: "topic"}[type(target)]
    return Comment.objects.filter(**{field: target}, is_hidden=False, is_deleted=False).count()


# --- posting ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_comment_counts_and_notifies_the_things_creator():
    thing, author = ThingFactory(), UserFactory()
    comment = services.comment_create(user=author, target=thing, body="Great *design*")
    assert (comment.target_type, comment.thing_id) == ("thing", thing.pk)
    assert (comment.depth, comment.parent_id) == (0, None)
    assert comment.body_html == "<p>Great <em>design</em></p>"
    assert count_of(thing) == 1
    event = Event.objects.get()
    assert (event.recipient, event.actor, event.kind, event.target_type, event.target_id) == (
        thing.creator, author, "comment", "comment", comment.pk
    )


@pytest.mark.django_db
def test_commenting_on_ones_own_thing_records_no_event():
    thing = ThingFactory()
    services.comment_create(user=thing.creator, target=thing, body="Update: v2 is out")
    assert count_of(thing) == 1 and not Event.objects.exists()


@pytest.mark.django_db
def test_a_comment_on_a_make_counts_on_the_make_and_notifies_its_creator():
    make = make_of()
    author = UserFactory()
    services.comment_create(user=author, target=make, body="Nice colours")
    assert count_of(make) == 1 and count_of(make.thing) == 0
    assert Event.objects.get().recipient == make.creator


@pytest.mark.django_db
def test_only_members_comment_on_a_topic():
    topic, member, outsider = GroupTopicFactory(), UserFactory(), UserFactory()
    join(topic.group, member)
    with pytest.raises(PermissionDenied):
        services.comment_create(user=outsider, target=topic, body="hi")
    services.comment_create(user=member, target=topic, body="hi")
    assert count_of(topic) == 1
    assert Event.objects.get().recipient == topic.user


@pytest.mark.django_db
def test_a_target_deleted_meanwhile_is_not_found():
    thing = ThingFactory()
    Thing.objects.filter(pk=thing.pk).delete()
    with pytest.raises(NotFound):
        services.comment_create(user=UserFactory(), target=thing, body="late")
    assert not Comment.objects.exists()


# --- replies ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_reply_is_on_the_same_target_one_level_deeper_and_notifies_the_parents_author():
    thing = ThingFactory()
    parent = services.comment_create(user=UserFactory(), target=thing, body="q")
    replier = UserFactory()
    reply = services.comment_reply(user=replier, comment=parent, body="a")
    assert (reply.thing_id, reply.parent_id, reply.depth) == (thing.pk, parent.pk, 1)
    assert count_of(thing) == 2
    event = Event.objects.latest("id")
    assert (event.recipient, event.actor, event.target_id) == (parent.user, replier, reply.pk)


@pytest.mark.django_db
def test_a_reply_at_the_deepest_level_goes_next_to_the_comment():
    thing = ThingFactory()
    comment = services.comment_create(user=UserFactory(), target=thing, body="0")
    for level in range(rules.COMMENT_MAX_DEPTH):
        comment = services.comment_reply(user=UserFactory(), comment=comment, body=str(level + 1))
    assert comment.depth == rules.COMMENT_MAX_DEPTH
    deepest_author = comment.user
    sibling = services.comment_reply(user=UserFactory(), comment=comment, body="more")
    assert (sibling.parent_id, sibling.depth) == (comment.parent_id, rules.COMMENT_MAX_DEPTH)
    assert Event.objects.latest("id").recipient == deepest_author  # the one replied to hears of it


@pytest.mark.django_db
def test_a_deleted_comment_takes_no_reply():
    thing = ThingFactory()
    parent = services.comment_create(user=UserFactory(), target=thing, body="q")
    services.comment_reply(user=UserFactory(), comment=parent, body="a")
    services.comment_remove(comment_id=parent.pk)
    parent.refresh_from_db()
    with pytest.raises(RuleViolation):
        services.comment_reply(user=UserFactory(), comment=parent, body="b")


@pytest.mark.django_db
def test_only_members_reply_on_a_topic():
    topic = GroupTopicFactory()
    comment = services.comment_create(user=topic.user, target=topic, body="q")
    comment = Comment.objects.select_related("topic__group", "user").get(pk=comment.pk)
    with pytest.raises(PermissionDenied):
        services.comment_reply(user=UserFactory(), comment=comment, body="a")


# --- editing ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_author_edits_and_the_html_is_rendered_again():
    comment = CommentFactory(body="old")
    services.comment_update(comment=comment, user=comment.user, body="**new**")
    comment.refresh_from_db()
    assert (comment.body, comment.body_html) == ("**new**", "<p><strong>new</strong></p>")
    with pytest.raises(PermissionDenied):
        services.comment_update(comment=comment, user=UserFactory(), body="x")


# --- deleting --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_deleting_a_comment_without_replies_removes_it():
    thing = ThingFactory()
    comment = services.comment_create(user=UserFactory(), target=thing, body="x")
    services.comment_delete(comment=comment, user=comment.user)
    assert not Comment.objects.exists() and count_of(thing) == 0


@pytest.mark.django_db
def test_deleting_a_comment_with_replies_leaves_a_placeholder_once():
    thing = ThingFactory()
    parent = services.comment_create(user=UserFactory(), target=thing, body="q")
    services.comment_reply(user=UserFactory(), comment=parent, body="a")
    services.comment_delete(comment=parent, user=parent.user)
    services.comment_remove(comment_id=parent.pk)  # again: a no-op
    parent.refresh_from_db()
    assert (parent.is_deleted, parent.body, parent.body_html, parent.user_id) == (True, "", "", None)
    assert count_of(thing) == visible_count(thing) == 1


@pytest.mark.django_db
def test_the_things_creator_may_delete_others_comments_and_strangers_may_not():
    thing = ThingFactory()
    comment = services.comment_create(user=UserFactory(), target=thing, body="spam")
    comment = Comment.objects.select_related("thing").get(pk=comment.pk)
    with pytest.raises(PermissionDenied):
        services.comment_delete(comment=comment, user=UserFactory())
    services.comment_delete(comment=comment, user=thing.creator)
    assert not Comment.objects.exists()


@pytest.mark.django_db
def test_removing_the_last_reply_of_placeholders_removes_them_up_the_thread():
    thing = ThingFactory()
    top = services.comment_create(user=UserFactory(), target=thing, body="0")
    middle = services.comment_reply(user=UserFactory(), comment=top, body="1")
    leaf = services.comment_reply(user=UserFactory(), comment=middle, body="2")
    other = services.comment_create(user=UserFactory(), target=thing, body="other")
    services.comment_remove(comment_id=top.pk)
    services.comment_remove(comment_id=middle.pk)
    assert Comment.objects.filter(is_deleted=True).count() == 2
    services.comment_remove(comment_id=leaf.pk)
    assert list(Comment.objects.values_list("pk", flat=True)) == [other.pk]
    assert count_of(thing) == 1


@pytest.mark.django_db
def test_deleting_a_thing_deletes_its_comments():
    thing = ThingFactory()
    parent = services.comment_create(user=UserFactory(), target=thing, body="q")
    services.comment_reply(user=UserFactory(), comment=parent, body="a")
    Thing.objects.filter(pk=thing.pk).delete()
    assert not Comment.objects.exists()


@pytest.mark.django_db
def test_deleting_a_topic_or_make_deletes_its_comments():
    topic, make = GroupTopicFactory(), make_of()
    services.comment_create(user=topic.user, target=topic, body="x")
    services.comment_create(user=UserFactory(), target=make, body="y")
    topic.delete()
    make.delete()
    assert not Comment.objects.exists()


# --- moderation ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_hiding_and_unhiding_moves_the_counter():
    thing = ThingFactory()
    comment = services.comment_create(user=UserFactory(), target=thing, body="x")
    moderator = UserFactory(is_staff=True)
    moderation_hide(obj=comment, reason="spam", by=moderator)
    services.comment_count_reconcile(comment=comment)
    services.comment_count_reconcile(comment=comment)  # a repeated hook changes nothing
    assert count_of(thing) == 0
    moderation_unhide(obj=comment)
    services.comment_count_reconcile(comment=comment)
    assert count_of(thing) == 1


@pytest.mark.django_db
def test_a_comment_hidden_then_deleted_is_uncounted_once():
    thing = ThingFactory()
    comment = services.comment_create(user=UserFactory(), target=thing, body="x")
    services.comment_reply(user=UserFactory(), comment=comment, body="y")
    moderation_hide(obj=comment, reason="spam", by=UserFactory(is_staff=True))
    services.comment_remove(comment_id=comment.pk)  # the author deletes it before the hook ran
    services.comment_count_reconcile(comment=comment)
    assert count_of(thing) == visible_count(thing) == 1


# --- account deletion ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_deleting_a_user_removes_their_comments_and_keeps_counters_exact():
    from apps.accounts.services import user_delete

    thing, topic, make = ThingFactory(), GroupTopicFactory(), make_of()
    leaving, staying = UserFactory(), UserFactory()
    join(topic.group, leaving)
    answered = services.comment_create(user=leaving, target=thing, body="answered")
    reply = services.comment_reply(user=staying, comment=answered, body="reply")
    lone = services.comment_create(user=leaving, target=thing, body="lone")
    services.comment_create(user=leaving, target=topic, body="topic")
    services.comment_create(user=leaving, target=make, body="make")
    own_chain = services.comment_create(user=leaving, target=make, body="chain")
    services.comment_reply(user=leaving, comment=own_chain, body="self-reply")
    hidden = services.comment_create(user=leaving, target=thing, body="hidden")
    moderation_hide(obj=hidden, reason="spam", by=UserFactory(is_staff=True))
    services.comment_count_reconcile(comment=hidden)

    user_delete(user=leaving)

    assert count_of(thing) == visible_count(thing) == 1
    assert count_of(topic) == count_of(make) == 0
    answered.refresh_from_db()
    assert (answered.is_deleted, answered.user_id, answered.body) == (True, None, "")
    assert set(Comment.objects.values_list("pk", flat=True)) == {answered.pk, reply.pk}
    assert not Comment.objects.filter(pk=lone.pk).exists()


# --- concurrency -----------------------------------------------------------------------------------


def _run_concurrently(calls):
    barrier, errors = threading.Barrier(len(calls)), []

    def run(call):
        try:
            barrier.wait()
            call()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.django_db(transaction=True)
def test_the_counter_stays_exact_under_concurrent_posts_replies_and_deletes():
    thing = ThingFactory()
    users = UserFactory.create_batch(6)
    existing = [services.comment_create(user=u, target=thing, body="old") for u in users]
    parent = existing[0]
    calls: list[Callable[[], object]] = [
        partial(services.comment_create, user=u, target=thing, body="new") for u in users
    ]
    calls += [partial(services.comment_reply, user=u, comment=parent, body="re") for u in users[1:4]]
    calls += [partial(services.comment_remove, comment_id=c.pk) for c in existing[1:]]
    calls += [partial(services.comment_remove, comment_id=existing[1].pk)]  # the same delete twice
    _run_concurrently(calls)
    assert count_of(thing) == visible_count(thing) == 1 + 6 + 3


@pytest.mark.django_db(transaction=True)
def test_replies_of_a_placeholder_deleted_at_once_remove_it():
    thing = ThingFactory()
    parent = services.comment_create(user=UserFactory(), target=thing, body="q")
    replies = [services.comment_reply(user=UserFactory(), comment=parent, body=str(i)) for i in range(4)]
    services.comment_remove(comment_id=parent.pk)
    _run_concurrently([lambda r=r: services.comment_remove(comment_id=r.pk) for r in replies])
    assert not Comment.objects.exists()
    assert count_of(thing) == 0


@pytest.mark.django_db(transaction=True)
def test_a_reply_racing_the_delete_of_its_parent_never_orphans():
    thing = ThingFactory()
    for _ in range(5):
        parent = services.comment_create(user=UserFactory(), target=thing, body="q")
        outcomes: list[str] = []

        def reply(parent=parent, outcomes=outcomes):
            try:
                services.comment_reply(user=UserFactory(), comment=parent, body="a")
                outcomes.append("replied")
            except NotFound:
                outcomes.append("gone")

        _run_concurrently([reply, lambda parent=parent: services.comment_remove(comment_id=parent.pk)])
        if outcomes == ["replied"]:
            # The reply came first: the parent stays as a placeholder above it.
            assert Comment.objects.get(pk=parent.pk).is_deleted
        else:
            assert not Comment.objects.filter(pk=parent.pk).exists()
    assert count_of(thing) == visible_count(thing)
    assert not Comment.objects.filter(parent__isnull=False).exclude(parent__in=Comment.objects.all()).exists()
