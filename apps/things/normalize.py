"""Normalisation of tags and category slugs (spec §2), shared by create, PATCH and every lookup."""
import re


def tag_normalize(raw: str) -> str:
    """spec §2 Tag: whitespace becomes underscores; characters other than alphanumerics, `_`, `-` go."""
    with_underscores = "".join("_" if ch.isspace() else ch for ch in raw.strip())
    return "".join(ch for ch in with_underscores if ch.isalnum() or ch in "_-")


def category_slug(name: str) -> str:
    """spec §2 Category: the lower-case name with spaces turned into dashes ('Replacement Parts' →
    'replacement-parts'). Characters that cannot stand in a URL path segment (`&`, `/`) are dropped and
    the dashes around them collapsed: 'Coins & Badges' → 'coins-badges', 'R/C Vehicles' → 'rc-vehicles'."""
    slug = name.strip().lower().replace(" ", "-")
    slug = re.sub(r"[^\w-]", "", slug)
    return re.sub(r"-{2,}", "-", slug).strip("-")
