"""The ZIP package of a Thing (spec §4.2 GET /things/{id}/package-url).

A package holds every live file of the Thing under its own name (deduplicated), plus README.txt and
LICENSE.txt with the attribution the license asks for. It is built by a Celery task, streamed from the
store into a ZIP in a temporary file (never the whole thing in memory), and uploaded back to the store.

A package is cached under a signature: a hash of what it is built from (the live files' ids, keys,
sizes and names, and the Thing's text the README and LICENSE quote). Adding, deleting or finishing a
file changes the signature, so the next package-url request queues a rebuild by itself.

Until the package of the current signature is ready, package-url answers 202 `{"status": "building",
"url": null}` with `Retry-After`; then 200 `{"url": …}`, a signed store URL.
"""
import hashlib
import logging
import shutil
import tempfile
import zipfile
from datetime import UTC

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from apps.accounts.links import user_public_url
from apps.core.broker.enqueue import task_enqueue_on_commit
from apps.core.domain.exceptions import NotFound
from apps.core.domain.licenses import license_name
from apps.things import rules as thing_rules
from apps.things.links import thing_public_url
from apps.things.models import Thing
from apps.uploads import links, rules, store
from apps.uploads.models import ThingPackage
from apps.uploads.packages import selectors

log = logging.getLogger(__name__)

# Bump when the ZIP's layout or texts change: every package is then rebuilt on its next request.
PACKAGE_FORMAT = "1"
# A queued build that has not finished after this long (a worker died) may be queued again.
BUILD_REQUEUE_SECONDS = 600
RESERVED_NAMES = ("README.txt", "LICENSE.txt")
COPY_CHUNK = 1024 * 1024

Status = ThingPackage.Status


def package_signature(*, thing, files) -> str:
    parts = [PACKAGE_FORMAT, thing.name, thing.license, thing.creator.username, thing.description,
             thing.instructions]
    parts += [f"{f.pk}:{f.key}:{f.size}:{f.name}" for f in files]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def package_key(*, thing_id: int, signature: str) -> str:
    return f"packages/{thing_id}/{signature}.zip"


def package_filename(thing) -> str:
    return f"{slugify(thing.name)[:80] or 'thing'}-{thing.pk}.zip"


def zip_names(files) -> list[str]:
    """Each file's name in the ZIP: its display name made safe, unique ignoring case (archives are
    unpacked on case-insensitive disks), never one of the attribution texts."""
    taken = {name.lower() for name in RESERVED_NAMES}
    names = []
    for file in files:
        name = rules.filename_clean(file.name) or "file"
        stem, dot, ext = name.rpartition(".")
        if not dot or not stem:
            stem, dot, ext = name, "", ""
        candidate, n = name, 1
        while candidate.lower() in taken:
            n += 1
            candidate = f"{stem} ({n}){dot}{ext}"
        taken.add(candidate.lower())
        names.append(candidate)
    return names


def _attribution(thing) -> str:
    return (
        f'"{thing.name}" by {thing.creator.username} ({user_public_url(thing.creator)})\n'
        f"{thing_public_url(thing.pk)}\n"
    )


def readme_text(*, thing, files, names, built_at) -> str:
    published = thing.published_at or thing.added
    lines = [
        _attribution(thing),
        f"License: {license_name(thing.license)}",
        f"Published: {published.astimezone(UTC):%Y-%m-%d}",
        f"Packaged: {built_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC",
        "",
        "Files:",
        *[f"  {name} ({links.formatted_size(file.size)})" for name, file in zip(names, files)],
    ]
    if thing.description:
        lines += ["", "Description:", thing.description]
    if thing.instructions:
        lines += ["", "Printing instructions:", thing.instructions]
    return "\n".join(lines) + "\n"


def license_text(*, thing, built_at) -> str:
    return (
        f"{_attribution(thing)}\n"
        f"This Thing is licensed under the {license_name(thing.license)} license.\n"
        f"Give credit to {thing.creator.username} and link to the page above when you share it or "
        f"anything made from it.\n\n"
        f"Packaged {built_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC.\n"
    )


def thing_package_write(fileobj, *, thing, files, built_at) -> None:
    """Write the ZIP to `fileobj`, streaming each file from the store into its entry."""
    names = zip_names(files)
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, file in zip(names, files):
            body = store.open_stream(file.key)
            try:
                with archive.open(name, "w", force_zip64=file.size >= zipfile.ZIP64_LIMIT) as entry:
                    shutil.copyfileobj(body, entry, COPY_CHUNK)
            finally:
                body.close()
        archive.writestr("README.txt", readme_text(thing=thing, files=files, names=names, built_at=built_at))
        archive.writestr("LICENSE.txt", license_text(thing=thing, built_at=built_at))


def thing_package_url(*, thing) -> str | None:
    """spec §4.2 package-url: the signed URL of the Thing's ZIP, or None while it is being built (a build
    of the current files is then queued). 404 NO_FILES without files. Side effects: as
    thing_package_request (a write and an enqueue, so a service: a selector never does either)."""
    reasons = thing_rules.thing_package_blockers(thing)
    if reasons:
        raise NotFound(reasons[0], errors=reasons, error_type="NO_FILES")
    return thing_package_request(thing=thing)


def thing_package_request(*, thing) -> str | None:
    """The signed URL of the Thing's ready package, or None once a build of the current files is
    queued. 404 NO_FILES when no file is live. Side effects: enqueues package_build on commit."""
    files = selectors.thing_live_files(thing_id=thing.pk)
    if not files:
        reason = "This Thing has no files ready to package yet."
        raise NotFound(reason, errors=[reason], error_type="NO_FILES")
    signature = package_signature(thing=thing, files=files)
    package = selectors.thing_package_get(thing_id=thing.pk)
    if package and package.status == Status.READY and package.signature == signature and package.key:
        return links.store_url(package.key, filename=package_filename(thing))

    with transaction.atomic():
        package, created = ThingPackage.objects.get_or_create(
            thing_id=thing.pk, defaults={"signature": signature, "status": Status.BUILDING}
        )
        if not created and (package.signature, package.status) != (signature, Status.BUILDING):
            ThingPackage.objects.filter(pk=package.pk).update(signature=signature, status=Status.BUILDING, error="")
        if _claim_build(thing.pk, signature):
            from apps.uploads.packages.tasks import package_build

            # Broker down: the package stays `building` and a poll after BUILD_REQUEUE_SECONDS queues again.
            task_enqueue_on_commit(package_build, (thing.pk,), sweep="the next package-url poll")
    return None


def _claim_build(thing_id: int, signature: str) -> bool:
    """One queued build per (Thing, signature) while it runs: clients poll package-url, and each poll
    must not queue another build. After BUILD_REQUEUE_SECONDS a stuck build may be queued again."""
    try:
        return cache.add(f"thing-package-build:{thing_id}:{signature}", 1, BUILD_REQUEUE_SECONDS)
    except Exception as exc:  # without Redis, a duplicate build is only wasted work: queue it
        log.warning("package build claim unavailable: %s", exc)
        return True


def thing_package_build(*, thing_id: int) -> None:
    """Build the package of the Thing's current live files and mark it ready. Safe to run twice (a
    ready package of the same signature is left alone). Raises store.StoreError for a retry."""
    thing = Thing.objects.select_related("creator").filter(pk=thing_id).first()
    package = selectors.thing_package_get(thing_id=thing_id)
    if thing is None or package is None:
        return
    files = selectors.thing_live_files(thing_id=thing_id)
    signature = package_signature(thing=thing, files=files)
    if package.status == Status.READY and package.signature == signature:
        return
    if not files:
        ThingPackage.objects.filter(pk=package.pk).update(status=Status.FAILED, error="No live files.")
        return
    # Build what is current now (the files may have changed since the request); a newer request
    # with yet another signature makes the update at the end match nothing, and its own build wins.
    ThingPackage.objects.filter(pk=package.pk).update(signature=signature, status=Status.BUILDING)
    key = package_key(thing_id=thing_id, signature=signature)
    built_at = timezone.now()
    try:
        with tempfile.TemporaryFile(suffix=".zip") as tmp:
            thing_package_write(tmp, thing=thing, files=files, built_at=built_at)
            tmp.seek(0)
            store.put_file(key, tmp, content_type="application/zip")
    except store.StoreError:
        raise
    except Exception as exc:
        log.exception("package of Thing %s failed", thing_id)
        ThingPackage.objects.filter(pk=package.pk, signature=signature).update(
            status=Status.FAILED, error=str(exc)[:1000]
        )
        return
    updated = ThingPackage.objects.filter(pk=package.pk, signature=signature).update(
        status=Status.READY, key=key, built_at=built_at, error=""
    )
    if updated and package.key and package.key != key:
        try:
            store.delete(package.key)
        except Exception as exc:  # an outdated ZIP left behind only costs storage
            log.warning("could not delete outdated package %s: %s", package.key, exc)
