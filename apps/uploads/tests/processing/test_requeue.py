"""Files and images stuck in `processing` (lost worker, retries exhausted) are processed again."""
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.uploads.models import ProcessingStatus, ThingFile
from apps.uploads.processing.services import STUCK_AFTER, processing_requeue_stuck
from apps.uploads.tests.file_factories import ThingFileFactory


@pytest.mark.django_db
def test_it_claims_only_rows_stuck_in_processing_for_too_long():
    stuck = ThingFileFactory(status=ProcessingStatus.PROCESSING)
    fresh = ThingFileFactory(status=ProcessingStatus.PROCESSING)
    live = ThingFileFactory(status=ProcessingStatus.LIVE)
    old = timezone.now() - STUCK_AFTER - timedelta(minutes=1)
    ThingFile.objects.filter(pk__in=[stuck.pk, live.pk]).update(modified=old)

    claimed = processing_requeue_stuck()

    assert claimed["files"] == [stuck.pk]
    assert fresh.pk not in claimed["files"] and live.pk not in claimed["files"]


@pytest.mark.django_db
def test_a_claimed_row_is_not_claimed_again_by_the_next_sweep():
    stuck = ThingFileFactory(status=ProcessingStatus.PROCESSING)
    ThingFile.objects.filter(pk=stuck.pk).update(modified=timezone.now() - STUCK_AFTER - timedelta(minutes=1))

    assert processing_requeue_stuck()["files"] == [stuck.pk]
    assert processing_requeue_stuck()["files"] == []
