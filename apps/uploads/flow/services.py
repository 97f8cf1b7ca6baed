"""Writes of the upload flow (spec §4.10, §3 Upload rows): start, finalize, verify, sweep.

The flow knows no target: what an upload becomes (a Thing's file or image, a make, a group's image, a
user's avatar) is a finalizer registered per kind (upload_finalizer_register) by the part or app that
owns the target, from its AppConfig.ready(): the files part, makes, groups, and the avatar and cover
(user_image_finalize, on the accounts service that owns the user row).

State machine of an Upload: pending → finalized | failed | expired; nothing leaves those three.
Store calls (HEAD, DELETE) never run inside a transaction: the row is read, the store asked, then the
row is locked (finalize) or claimed with a conditional UPDATE (fail, expire) and the answer re-checked.
"""

import logging
from collections.abc import Callable
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.accounts.services import user_image_replace
from apps.core.pipeline import versions, wire
from apps.core.pipeline.api import api_url
from apps.core.broker.enqueue import task_enqueue_on_commit
from apps.core.pipeline.lookups import id_or_404
from apps.core.domain.exceptions import (
    DomainError,
    NotFound,
    PermissionDenied,
    RuleViolation,
    ServiceUnavailable,
    ValidationFailed,
)
from apps.uploads import rules, store
from apps.uploads.models import Upload

log = logging.getLogger(__name__)

ACL = "private"  # every download goes through a signed URL (store.download_url)
# Objects of failed/expired uploads are deleted again by the sweeps of this long after the policy
# expired: until then a client may still POST bytes to a failed upload's key.
STRAY_OBJECT_WINDOW = timedelta(minutes=30)
VERIFY_MAX_ATTEMPTS = 4
# docs/reliability.md: an unreachable store at finalize is a 503; the upload stays pending meanwhile.
STORE_RETRY_AFTER_SECONDS = 30


class UploadProblem(RuleViolation):
    """400 of a finalize that cannot (yet) succeed; `error_type` is one of rules.MESSAGES."""

    def __init__(self, error_type: str, reason: str = ""):
        message = rules.MESSAGES[error_type]
        super().__init__(f"{message}: {reason}" if reason else message, error_type=error_type)


class StoreUnavailable(ServiceUnavailable):
    """503 of a finalize while the object store cannot be reached: nothing changed, finalize again later."""

    error_type = "STORE_UNAVAILABLE"
    default_message = "The file store cannot be reached; the upload is still pending, finalize it later."

    def __init__(self):
        super().__init__(retry_after=STORE_RETRY_AFTER_SECONDS)


class _TargetGone(Exception):
    """The Thing, copy or user the upload was for no longer exists."""


# --- Start -----------------------------------------------------------------------------------------


def upload_start(*, owner, kind: str, target_id: int, filename: str) -> Upload:
    """A pending upload of `filename` for a target the caller may change (the view checked that).

    Side effects: schedules upload_verify after UPLOAD_VERIFY_DELAY_SECONDS, on commit.
    """
    if kind not in _FINALIZERS:
        raise ValueError(f"no finalizer for upload kind {kind!r}")
    name = rules.filename_clean(filename)
    if not name:
        raise ValidationFailed(
            "filename: This field may not be blank.", errors={"filename": ["This field may not be blank."]}
        )
    if not rules.upload_kind_accepts(kind, name):
        message = "Only images can be uploaded here (" + ", ".join(sorted(rules.IMAGE_EXTENSIONS)) + ")."
        raise ValidationFailed(f"filename: {message}", errors={"filename": [message]})
    if kind == Upload.Kind.THING_FILE:
        problem = rules.thing_file_type_problem(name)
        if problem is not None:
            raise ValidationFailed(f"filename: {problem}", errors={"filename": [problem]})
    upload = Upload.objects.create(
        owner=owner,
        kind=kind,
        target_id=target_id,
        filename=name,
        content_type=rules.content_type_for(name),
        key=rules.object_key(owner_id=owner.pk, name=name),
        expires_at=timezone.now() + timedelta(seconds=settings.UPLOAD_POLICY_SECONDS),
    )
    _verify_schedule(upload.pk, countdown=settings.UPLOAD_VERIFY_DELAY_SECONDS)
    return upload


def upload_descriptor(*, upload: Upload, wire_version: str = versions.DEFAULT) -> dict:
    """spec §2 Upload descriptor: the signed form the client posts the bytes with (no I/O).

    In a wire version declaring "UploadRelay" (apps.core.pipeline.wire: `thingiverse`) the form's `action` is the
    relay on the service's own origin (`upload_relay_store`), which answers 200 where the store answers
    303 (the live service's answer since 2023); the fields are the same signed ones."""
    descriptor = store.post_form(
        key=upload.key,
        content_type=upload.content_type,
        redirect=api_url(f"files/{upload.pk}/finalize"),
        expires_at=upload.expires_at,
        acl=ACL,
        content_disposition="",
    )
    if wire.has(wire_version, "UploadRelay"):
        descriptor["action"] = api_url(f"uploads/{upload.pk}/store")
    return descriptor


def upload_relay_store(*, upload_id: int, fields, fileobj, size: int) -> bool:
    """Store the bytes a client POSTed to the relay (`upload_descriptor`) under the pending upload's key,
    when the posted form is the one signed for that upload (store.post_form_verify: signature, expiry,
    key, size range, content type). False when it is not (or the upload is not pending)."""
    upload = Upload.objects.filter(pk=upload_id, status=Upload.Status.PENDING).first()
    if upload is None or fields.get("key") != upload.key:
        return False
    if store.post_form_verify(fields, size=size) is None:
        return False
    store.upload_file(upload.key, fileobj, content_type=fields.get("Content-Type") or upload.content_type)
    return True


# --- Finalize --------------------------------------------------------------------------------------


def upload_finalize(*, upload_id, user) -> dict:
    """spec §4.3 POST /files/{id}/finalize: the caller's pending upload becomes a file or an image.

    Idempotent: once finalized, every call answers the same summary. An unreachable store is
    StoreUnavailable (503) with the upload left pending (the store is asked before any row changes).
    Side effects: processing is enqueued on commit; a rejected object is deleted from the store.
    """
    upload_id = id_or_404(upload_id)
    upload = Upload.objects.select_related("file", "image", "owner").filter(pk=upload_id).first()
    if upload is None:
        raise NotFound()
    if not rules.upload_can_finalize(upload, user=user):
        raise PermissionDenied()
    try:
        return _upload_settle(upload)
    except store.StoreError as exc:
        # Not in _upload_settle: upload_verify lets StoreError reach its task, which retries with backoff.
        log.warning("finalize of upload %s: store unavailable: %s", upload.pk, exc)
        raise StoreUnavailable() from exc


def upload_summary(*, upload: Upload) -> dict:
    """spec §2 Finalized file summary of a finalized upload: {id, name, url}."""
    file, image = upload.file, upload.image
    if file is not None:
        return {"id": file.pk, "name": file.name, "url": api_url(f"files/{file.pk}")}
    if image is not None:
        if image.thing_id is not None:
            url = api_url(f"things/{image.thing_id}/images/{image.pk}")
        else:
            url = api_url(f"copies/{image.copy_id}/images/{image.pk}")
        return {"id": image.pk, "name": image.name, "url": url}
    # Avatar, cover, group image: no record of their own, the upload is the record. The signed URL
    # stays the same within its signing window, so a repeated finalize answers the same summary.
    return {"id": upload.pk, "name": upload.filename, "url": store.presigned_get_url(upload.key)}


# How many times finalize re-checks an object replaced while it was being checked.
FREEZE_ATTEMPTS = 3


def _upload_settle(upload: Upload, *, attempts: int = FREEZE_ATTEMPTS) -> dict:
    if upload.status == Upload.Status.FINALIZED:
        return upload_summary(upload=upload)
    if upload.status != Upload.Status.PENDING:
        raise UploadProblem(rules.upload_failure_type(upload))

    info = store.head(upload.key)  # outside any transaction: the store may be slow
    if info is None:
        # A concurrent call may have failed the upload and deleted its object since we read the row.
        current = Upload.objects.select_related("file", "image").get(pk=upload.pk)
        if current.status != Upload.Status.PENDING:
            return _upload_settle(current)
        if rules.upload_is_expired(upload, now=timezone.now()):
            return _upload_close(upload, Upload.Status.EXPIRED, rules.UPLOAD_EXPIRED)
        raise UploadProblem(rules.UPLOAD_MISSING)
    problem = rules.upload_size_problem(info.size, max_bytes=settings.UPLOAD_MAX_BYTES)
    if problem is not None:
        return _upload_close(upload, Upload.Status.FAILED, problem, size=info.size)

    # docs/security.md (issue 14, finding 4): the policy stays valid for its hour, so the same form could
    # replace the object behind a live file. Freeze it: copy it (only while its ETag is the one just
    # seen) to a key no policy names and no other finalize writes, check that copy, and serve that copy;
    # the policy's object is deleted on commit.
    frozen = rules.stored_key(upload.key)
    try:
        store.copy(upload.key, frozen, if_match=info.etag)
    except store.ObjectChanged:
        if attempts <= 1:
            raise UploadProblem(rules.UPLOAD_MISSING) from None
        return _upload_settle(upload, attempts=attempts - 1)  # replaced meanwhile: look again
    info = store.head(frozen)
    if info is None:
        raise store.StoreError(f"the frozen copy {frozen} is missing right after the copy")
    problem = rules.upload_size_problem(info.size, max_bytes=settings.UPLOAD_MAX_BYTES)
    if problem is not None:
        _object_delete(frozen)
        return _upload_close(upload, Upload.Status.FAILED, problem, size=info.size)
    # Issue 26: whatever its name said, a program or a script is refused by its first bytes.
    program = rules.content_executable_kind(store.read_head(frozen, rules.SNIFF_BYTES))
    if program is not None:
        _object_delete(frozen)
        return _upload_close(upload, Upload.Status.FAILED, rules.UPLOAD_FAILED, size=info.size,
                             reason=f"the file is {program}; programs and scripts cannot be uploaded")

    gone = False
    with transaction.atomic():
        locked = Upload.objects.select_for_update().get(pk=upload.pk)
        if locked.status == Upload.Status.PENDING:
            locked.size = info.size
            locked.key = frozen  # what the finalizer records (file, image, avatar …) is the frozen copy
            transaction.on_commit(partial(_object_delete, upload.key))
            try:
                _FINALIZERS[locked.kind](locked, size=info.size)
            except _TargetGone:
                gone = True
                locked.status = Upload.Status.FAILED
                locked.error = (
                    f"{rules.UPLOAD_FAILED}: the {locked.get_kind_display().lower()} target was deleted"
                )
                locked.save(update_fields=["status", "error", "size"])  # the key stays the policy's
                transaction.on_commit(partial(_object_delete, frozen))
            else:
                locked.status = Upload.Status.FINALIZED
                locked.finalized_at = timezone.now()
                locked.save(update_fields=["status", "size", "finalized_at", "file", "image", "key"])
                return upload_summary(upload=locked)
        elif locked.key != frozen:
            # A concurrent finalize settled it first (with a copy of its own): ours is not needed.
            transaction.on_commit(partial(_object_delete, frozen))
    if gone:
        raise NotFound()
    # A concurrent call held the lock first and settled it: answer as it did.
    return _upload_settle(Upload.objects.select_related("file", "image").get(pk=upload.pk))


def _upload_close(upload: Upload, status: str, error_type: str, *, size=None, reason: str = ""):
    """Claim pending → failed/expired, delete the object on commit, and answer the problem."""
    error = f"{error_type}: {reason or rules.MESSAGES[error_type]}"
    claimed = Upload.objects.filter(pk=upload.pk, status=Upload.Status.PENDING).update(
        status=status, error=error, size=size
    )
    if claimed:
        transaction.on_commit(partial(_object_delete, upload.key))
        raise UploadProblem(error_type, reason)
    # Someone else settled it meanwhile (a concurrent finalize or the verify task): answer as they did.
    return _upload_settle(Upload.objects.select_related("file", "image").get(pk=upload.pk))


_FINALIZERS: dict[str, Callable] = {}


def upload_finalizer_register(kind: str, finalizer: Callable) -> None:
    """Say what an upload of `kind` becomes: `finalizer(upload, *, size)` runs under the Upload's lock,
    sets what the upload became (`upload.file` / `upload.image`, or the target's own column) and raises
    LookupError when the target is gone (the upload then fails, 404)."""

    def wrapped(upload, *, size):
        try:
            finalizer(upload, size=size)
        except LookupError:
            raise _TargetGone() from None

    _FINALIZERS[kind] = wrapped


def user_image_finalize(field: str, upload: Upload, *, size: int) -> None:
    """Finalizer of `avatar` and `cover` (registered with the field bound): the user's row takes the
    new key (accounts.services.user_image_replace); the replaced object goes from the store on commit.
    LookupError when the user is gone."""
    previous = user_image_replace(user_id=upload.target_id, field=field, key=upload.key)
    # Only objects this flow created are ours to delete (not seeded or externally managed keys).
    if previous and previous != upload.key and rules.key_is_ours(previous):
        transaction.on_commit(partial(_object_delete, previous))


# --- The service's own checks (spec §3: "the service checks the upload automatically later") ---------


def upload_verify(*, upload_id: int) -> str:
    """Finalize a pending upload whose bytes arrived, as its owner would; expire it when they never will.

    Returns the outcome: "finalized", "failed", "expired", "waiting" (not arrived, not expired) or
    "gone" (no such upload). Safe to run any number of times.
    """
    upload = Upload.objects.select_related("file", "image").filter(pk=upload_id).first()
    if upload is None:
        return "gone"
    try:
        _upload_settle(upload)
    except UploadProblem as exc:
        if exc.error_type == rules.UPLOAD_MISSING:
            return "waiting"
        return "expired" if exc.error_type == rules.UPLOAD_EXPIRED else "failed"
    except store.StoreError:
        raise  # for the task's retry with backoff (a StoreError is a DomainError too: the 503 of requests)
    except DomainError:  # the target was deleted: the upload is failed now
        return "failed"
    return "finalized"


def upload_verify_next_countdown(*, upload_id: int, attempt: int) -> int | None:
    """Seconds until the next check of a still-pending upload, or None when no more are due.

    Checks back off (5, 10, 20 minutes …) and the last one is just after the policy expired, when the
    bytes can no longer arrive and the upload is settled for good.
    """
    if attempt >= VERIFY_MAX_ATTEMPTS:
        return None
    upload = Upload.objects.filter(pk=upload_id, status=Upload.Status.PENDING).only("expires_at").first()
    if upload is None:
        return None
    until_expiry = (upload.expires_at - timezone.now()).total_seconds() + 5
    backoff = settings.UPLOAD_VERIFY_DELAY_SECONDS * 2**attempt
    if attempt == VERIFY_MAX_ATTEMPTS - 1 or until_expiry <= backoff:
        return max(1, int(until_expiry))
    return int(backoff)


def uploads_sweep_expired(*, now=None, limit: int = 500) -> dict:
    """Periodic: settle pending uploads past their expiry, and delete stray objects of failed ones."""
    now = now or timezone.now()
    outcomes: dict[str, int] = {}
    overdue = Upload.objects.filter(status=Upload.Status.PENDING, expires_at__lt=now).order_by("expires_at")
    for upload_id in overdue.values_list("pk", flat=True)[:limit]:
        outcome = upload_verify(upload_id=upload_id)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    # A failed upload's form stays valid until expiry: bytes posted again meanwhile are deleted here.
    closed = Upload.objects.filter(
        status__in=[Upload.Status.FAILED, Upload.Status.EXPIRED],
        expires_at__lt=now,
        expires_at__gte=now - STRAY_OBJECT_WINDOW,
    )
    for key in closed.values_list("key", flat=True)[:limit]:
        _object_delete(key)
        outcomes["deleted"] = outcomes.get("deleted", 0) + 1
    # A finalized upload's form stays valid too: bytes posted to its policy key after finalize (the file
    # serves its frozen copy, never those) are deleted here once the form has expired.
    finalized = Upload.objects.filter(
        status=Upload.Status.FINALIZED,
        expires_at__lt=now,
        expires_at__gte=now - STRAY_OBJECT_WINDOW,
    )
    for key in finalized.values_list("key", flat=True)[:limit]:
        _object_delete(rules.policy_key_of(key))
        outcomes["deleted"] = outcomes.get("deleted", 0) + 1
    return outcomes


# --- Side effects (run on commit) -----------------------------------------------------------------


def object_delete_on_commit(key: str) -> None:
    """Delete a stored object once the current transaction commits (for other apps replacing one)."""
    transaction.on_commit(partial(_object_delete, key))


def _object_delete(key: str) -> None:
    try:
        store.delete(key)
    except Exception:
        # The sweep deletes it again; a failed cleanup must not fail the request that caused it.
        log.warning("could not delete object %s", key, exc_info=True)


def _verify_schedule(upload_id: int, *, countdown: int, attempt: int = 0) -> None:
    from apps.uploads.flow.tasks import upload_verify as task

    # Minutes away: a pending-task row in this transaction, published when due (apps/core/broker/enqueue.py).
    task_enqueue_on_commit(task, (upload_id,), {"attempt": attempt}, countdown=countdown,
                           sweep="uploads_sweep_expired")


def upload_verify_schedule_next(*, upload_id: int, attempt: int) -> int | None:
    """Schedule the next check of a still-pending upload; its countdown, or None when none is due.

    Side effects: a pending-task row (the check is minutes away)."""
    countdown = upload_verify_next_countdown(upload_id=upload_id, attempt=attempt)
    if countdown is not None:
        _verify_schedule(upload_id, countdown=countdown, attempt=attempt)
    return countdown
