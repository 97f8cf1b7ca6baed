"""One URL, several view classes: `combine(ListView, StartView)` answers each one's methods.

Some spec paths mix concerns owned by different apps or modules (GET /things/{id}/files lists files,
POST starts an upload). The combined class is a real APIView subclass, so DRF's conventions and the
OpenAPI schema see every method; a method none of them defines is the JSON 405.
"""


def combine(*view_classes, name: str | None = None):
    methods = [m for cls in view_classes for m in cls.http_method_names if hasattr(cls, m) and m != "options"]
    duplicated = {m for m in methods if methods.count(m) > 1}
    if duplicated:
        raise ValueError(f"more than one view answers {sorted(duplicated)}")
    return type(name or "".join(cls.__name__.removesuffix("View") for cls in view_classes) + "View",
                view_classes, {})
