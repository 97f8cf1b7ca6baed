"""Placeholder: the search work writes the index maintenance here."""


def thing_index_search(*, thing_ids) -> None:
    """Recompute the weighted search vector of these Things (name A > tags B > description C)."""
