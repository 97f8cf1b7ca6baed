"""Write helpers every app's services share."""
from collections.abc import Iterable


def model_update(instance, *, data: dict, fields: Iterable[str], also: Iterable[str] = (), changed_only: bool = True) -> list[str]:
    """A partial update (PATCH): copy the `fields` that `data` has onto `instance` and save only those
    columns, plus `also` (an auto_now `modified`), so a concurrent change to another column is never
    overwritten with a stale value. Returns the fields written; nothing is saved when there are none.

    `changed_only`: leave out a field whose value is already stored (default). Without it, every given
    field is written, so repeating a value still touches `also`."""
    names = [
        name for name in fields if name in data and (not changed_only or getattr(instance, name) != data[name])
    ]
    for name in names:
        setattr(instance, name, data[name])
    if names:
        instance.save(update_fields=[*names, *also])
    return names
