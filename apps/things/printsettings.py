"""A Thing's structured print settings (DECISIONS.md "Print settings and model formats (round 3)"):
`{printer, material, layer_height_mm, supports, infill_percent, nozzle_mm, notes}`, each optional.

Stored as a JSON object holding only the keys that have a value (null when none has); shown with every
key, null when unset. The API, the site's form and the service all check a value here, so each says
the same thing about a bad one. `material` is also a search filter (its lower case is copied to the
search table: apps.search.services)."""
import math

# key: (kind, limits): text (max length), number (min, max, unit), boolean.
FIELDS: dict[str, tuple] = {
    "printer": ("text", 100),
    "material": ("text", 50),
    "layer_height_mm": ("number", 0.01, 5.0, "mm"),
    "supports": ("boolean",),
    "infill_percent": ("number", 0.0, 100.0, "%"),
    "nozzle_mm": ("number", 0.05, 5.0, "mm"),
    "notes": ("text", 2000),
}
KEYS = tuple(FIELDS)


class PrintSettingsError(ValueError):
    """A bad print_settings value; the message names the key."""


def _value(key: str, value):
    if value is None:
        return None
    kind = FIELDS[key][0]
    if kind == "text":
        if not isinstance(value, str):
            raise PrintSettingsError(f"{key} must be a string or null.")
        value = value.strip()
        if len(value) > FIELDS[key][1]:
            raise PrintSettingsError(f"{key} must be at most {FIELDS[key][1]} characters.")
        return value or None
    if kind == "boolean":
        if not isinstance(value, bool):
            raise PrintSettingsError(f"{key} must be true, false or null.")
        return value
    low, high, unit = FIELDS[key][1:]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PrintSettingsError(f"{key} must be a number or null.")
    if not low <= value <= high:
        raise PrintSettingsError(f"{key} must be between {low:g} and {high:g} ({unit}).")
    return value


def print_settings_parse(value) -> dict | None:
    """The keys `value` gives, each checked and cleaned (None where it is null or blank), or None when
    `value` is null (clear them all). PrintSettingsError names the first bad key."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise PrintSettingsError("must be an object or null.")
    unknown = sorted(set(value) - set(KEYS))
    if unknown:
        raise PrintSettingsError(f"unknown key {unknown[0]!r}; the keys are {', '.join(KEYS)}.")
    return {key: _value(key, value[key]) for key in KEYS if key in value}


def print_settings_merge(current, parsed: dict | None) -> dict | None:
    """The stored form after applying `parsed` over `current` (keys absent keep their value, keys given
    as null are cleared; None clears all): only the keys with a value, None when none has one."""
    if parsed is None:
        return None
    merged = {**(current if isinstance(current, dict) else {}), **parsed}
    stored = {key: merged[key] for key in KEYS if merged.get(key) is not None}
    return stored or None


def print_settings_output(stored) -> dict | None:
    """What the API shows: every key (null when unset), or null when the Thing has none."""
    if not isinstance(stored, dict) or not stored:
        return None
    return {key: stored.get(key) for key in KEYS}
