from types import SimpleNamespace

from django.contrib.auth.models import AnonymousUser

from apps.things import rules


def _thing(**kw):
    defaults = dict(
        creator_id=1, is_published=False, name="Bracket", description="Holds shelves.", license="cc",
        file_count=0, is_hidden=False, is_private=False,
    )
    return SimpleNamespace(**{**defaults, **kw})


def _user(pk, *, is_staff=False):
    return SimpleNamespace(pk=pk, is_authenticated=True, is_staff=is_staff)


def test_only_the_creator_edits_and_sees_a_draft():
    draft = _thing()
    assert rules.thing_can_edit(_user(1), draft) and rules.thing_can_view(_user(1), draft)
    assert not rules.thing_can_edit(_user(2), draft) and not rules.thing_can_view(_user(2), draft)
    assert not rules.thing_can_view(AnonymousUser(), draft)
    assert rules.thing_can_view(_user(2), _thing(is_published=True))


def test_a_hidden_thing_is_seen_by_staff_only_not_even_its_creator():
    hidden = _thing(is_published=True, is_hidden=True)
    assert not rules.thing_can_view(_user(1), hidden)
    assert not rules.thing_can_view(_user(2), hidden)
    assert not rules.thing_can_view(AnonymousUser(), hidden)
    assert rules.thing_can_view(_user(3, is_staff=True), hidden)


def test_a_private_thing_is_its_creators_alone():
    private = _thing(is_published=True, is_private=True)
    assert rules.thing_can_view(_user(1), private)
    assert not rules.thing_can_view(_user(2), private)
    assert not rules.thing_can_view(AnonymousUser(), private)
    assert not rules.thing_can_view(_user(3, is_staff=True), private)


def test_publish_blockers_name_every_reason():
    assert rules.thing_publish_blockers(_thing()) == []
    assert rules.thing_publish_blockers(_thing(name=" ", description="", license="")) == [
        "Name cannot be blank.",
        "Description cannot be blank.",
        "A license is required.",
    ]


def test_liking_ones_own_thing_is_blocked():
    assert rules.thing_like_blockers(_user(1), _thing()) == ["You cannot like your own Thing."]
    assert rules.thing_like_blockers(_user(2), _thing()) == []


def test_tags_are_normalised_and_deduplicated_ignoring_case_keeping_the_first_spelling():
    names, errors = rules.thing_tags_normalize(["Cable management", "cable_MANAGEMENT", "a&b", " x "])
    assert (names, errors) == (["Cable_management", "ab", "x"], [])


def test_a_tag_with_nothing_left_or_too_long_is_an_error_not_dropped():
    names, errors = rules.thing_tags_normalize(["ok", "!!!", "y" * 101])
    assert names == ["ok"]
    assert errors == [
        'Tag 2 has nothing left once normalised (letters, digits, "_" and "-" stay).',
        "Tag 3 is longer than 100 characters.",
    ]


def test_at_most_fifty_distinct_tags():
    assert rules.thing_tags_normalize([f"t{i}" for i in range(50)])[1] == []
    # Duplicates do not count towards the cap.
    assert rules.thing_tags_normalize([f"t{i}" for i in range(50)] + ["T0"])[1] == []
    assert rules.thing_tags_normalize([f"t{i}" for i in range(51)])[1] == ["A Thing has at most 50 tags."]


def test_a_package_needs_files():
    assert rules.thing_package_blockers(_thing()) == ["This Thing has no files to package yet."]
    assert rules.thing_package_blockers(_thing(file_count=2)) == []
