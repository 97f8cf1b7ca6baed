import pytest

from apps.groups import rules


@pytest.mark.parametrize(
    ("current", "new", "allowed"),
    [(0, 1, True), (0, 3, True), (2, 0, True), (1, 2, False), (3, 3, False), (0, 0, False)],
)
def test_rank_transitions_follow_spec_section_3(current, new, allowed):
    assert (rules.group_thing_rank_blocker(current, new) is None) is allowed


def test_featured_to_featured_says_remove_with_rank_0_first():
    assert "must first be removed with rank 0" in (rules.group_thing_rank_blocker(1, 2) or "")
