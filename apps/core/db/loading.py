"""Model instances made from rows without Django's per-instance machinery (issue 24, first reads).

Django's `Model.from_db` calls `Model.__init__`, which sends `pre_init` and `post_init`, walks every
concrete field (deferred ones included) and sets each value through `setattr`. A page of 30 short Things
makes 60 instances (the Things and their creators), and that walk was the largest part of a list page read
without its cache. For a model where nothing can observe the difference, `LeanFromDb.from_db` does what
that path ends up doing, directly: a new instance whose `__dict__` holds the loaded attributes (the
deferred ones absent, so they load on access as before) and whose state says "from this database".

Nothing can observe the difference when (checked per class, once, and the signals on every call):
- the model keeps `Model.__init__` (no `__init__` of its own to run);
- no receiver listens to `pre_init` or `post_init` for it;
- every field's class attribute either has no `__set__` (DeferredAttribute) or is one whose `__set__` on a
  fresh instance only stores the value: a foreign key's id (there is no cached related object to drop yet)
  or a file field without dimension fields.
Otherwise `from_db` is Django's own.
"""
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.fields.files import FileDescriptor, ImageField
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.signals import post_init, pre_init
from django.dispatch.dispatcher import NO_RECEIVERS


class LeanFromDb:
    """Mix into a model (before models.Model) whose rows are read in bulk."""

    @classmethod
    def from_db(cls, db, field_names, values, **kwargs):
        if kwargs:  # a newer Django's keyword (fetch_mode): its own path
            return super().from_db(db, field_names, values, **kwargs)  # type: ignore[misc]  # Model.from_db
        lean = cls.__dict__.get("_lean_from_db")
        if lean is None:
            lean = _plain_fields(cls)
            cls._lean_from_db = lean  # type: ignore[attr-defined]  # per concrete class (cls.__dict__, not inherited)
        if not lean or _listened(pre_init, cls) or _listened(post_init, cls):
            return super().from_db(db, field_names, values)  # type: ignore[misc]  # Model.from_db
        new = cls.__new__(cls)
        new.__dict__.update(zip(field_names, values))
        state = new._state = ModelState()  # type: ignore[attr-defined]  # what Model.__init__ sets
        state.adding = False
        state.db = db
        return new


def _listened(signal, sender) -> bool:
    """`signal.has_listeners(sender)`, answered from the signal's own per-sender cache when that says
    "none" (as `Signal.send` does: the cache is cleared on every connect and disconnect). A list page
    makes some 60 instances, and has_listeners' full check twice per instance was ~0.1 ms of it."""
    if not signal.receivers or signal.sender_receivers_cache.get(sender) is NO_RECEIVERS:
        return False
    return signal.has_listeners(sender)


def _plain_fields(cls) -> bool:
    if cls.__init__ is not Model.__init__:
        return False
    for field in cls._meta.concrete_fields:
        descriptor = cls.__dict__.get(field.attname) or getattr(cls, field.attname, None)
        if not hasattr(type(descriptor), "__set__"):
            continue
        if isinstance(descriptor, ForeignKeyDeferredAttribute):
            continue
        if isinstance(descriptor, FileDescriptor) and not (
            isinstance(field, ImageField)
            and (getattr(field, "width_field", None) or getattr(field, "height_field", None))
        ):
            continue
        return False
    return True
