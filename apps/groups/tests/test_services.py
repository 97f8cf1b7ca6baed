import threading

import pytest
from django.db import connection

from apps.core.domain.exceptions import RuleViolation
from apps.groups import services
from apps.groups.models import Group, GroupThing
from apps.groups.tests.factories import GroupFactory
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Upload


@pytest.mark.django_db(transaction=True)
def test_concurrent_featuring_never_puts_two_things_in_one_slot():
    group = GroupFactory()
    things = [ThingFactory() for _ in range(4)]
    for thing in things:
        GroupThing.objects.create(group=group, thing=thing, added_by=group.creator)
    barrier, outcomes = threading.Barrier(4), []

    def feature(thing):
        try:
            barrier.wait()
            services.group_thing_rank_set(group=group, thing_id=thing.pk, user=group.creator, rank=1)
            outcomes.append("ok")
        except RuleViolation:
            outcomes.append("400")
        finally:
            connection.close()

    threads = [threading.Thread(target=feature, args=(thing,)) for thing in things]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["400", "400", "400", "ok"]
    assert GroupThing.objects.filter(group=group, rank__gt=0).count() == 1


@pytest.mark.django_db
def test_group_image_finalizer_sets_the_key_and_deletes_the_old_object(django_capture_on_commit_callbacks, s3):
    group = GroupFactory(image="uploads/1/old/old.png")
    upload = Upload.objects.create(
        owner=group.creator, kind=Upload.Kind.GROUP_IMAGE, target_id=group.pk, filename="new.png",
        content_type="image/png", key="uploads/1/new/new.png", expires_at="2100-01-01T00:00:00Z",
    )
    with django_capture_on_commit_callbacks() as callbacks:
        services.group_image_finalize(upload, size=10)
    group.refresh_from_db()
    assert group.image == "uploads/1/new/new.png"
    assert len(callbacks) == 1


@pytest.mark.django_db
def test_group_image_finalizer_reports_a_deleted_group():
    group = GroupFactory()
    upload = Upload(target_id=group.pk, key="uploads/x")
    Group.objects.filter(pk=group.pk).delete()
    with pytest.raises(LookupError):
        services.group_image_finalize(upload, size=1)
