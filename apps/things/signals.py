"""Cached Thing bodies (apps.things.bodycache) follow the rows they are built from besides the Thing's
own (whose every UPDATE moves its version in the database, migration things.0010; a deleted Thing has no
row to match): its creator's summary (name, avatar), its category's name and its tags' names emit the
one change event (apps.things.changes) for the Things showing them, in the same transaction."""
from django.contrib.auth import get_user_model
from django.db.models.signals import post_save

from apps.things.bodycache import CREATOR_SUMMARY_FIELDS
from apps.things.changes import thing_changed_emit
from apps.things.models import Category, Tag


def _user_saved(sender, instance, raw=False, created=False, update_fields=None, **kwargs) -> None:
    if raw or created:
        return
    if update_fields is not None and not CREATOR_SUMMARY_FIELDS.intersection(update_fields):
        return  # last_login, last_active …: not in a Thing's creator summary
    thing_changed_emit(creator_id=instance.pk)


def _category_saved(sender, instance, raw=False, created=False, **kwargs) -> None:
    if not (raw or created):
        thing_changed_emit(category_id=instance.pk)


def _tag_saved(sender, instance, raw=False, created=False, **kwargs) -> None:
    if not (raw or created):
        thing_changed_emit(thingtag__tag_id=instance.pk)


def body_cache_signals_connect() -> None:
    from apps.things.bodycache import thing_changed_listen

    thing_changed_listen()  # the cache listens to the one change event (apps.things.changes)
    post_save.connect(_user_saved, sender=get_user_model(), dispatch_uid="thing-body-user-save")
    post_save.connect(_category_saved, sender=Category, dispatch_uid="thing-body-category-save")
    post_save.connect(_tag_saved, sender=Tag, dispatch_uid="thing-body-tag-save")
