"""Pure rules of comments."""
from types import SimpleNamespace as NS

from apps.comments import rules

AUTHOR, OWNER, OTHER = (NS(pk=pk, is_authenticated=True) for pk in (1, 2, 3))


def comment(**kw):
    base = dict(pk=10, user_id=AUTHOR.pk, is_deleted=False, depth=0, parent_id=None, target_type="thing",
                thing=NS(creator_id=OWNER.pk))
    return NS(**{**base, **kw})


def test_only_the_author_edits_and_not_a_deleted_comment():
    assert rules.comment_can_edit(AUTHOR, comment())
    assert not rules.comment_can_edit(OWNER, comment())
    assert not rules.comment_can_edit(AUTHOR, comment(is_deleted=True, user_id=None))


def test_the_author_or_the_things_creator_deletes():
    assert rules.comment_can_delete(AUTHOR, comment())
    assert rules.comment_can_delete(OWNER, comment())
    assert not rules.comment_can_delete(OTHER, comment())


def test_a_makes_creator_and_its_things_creator_delete_its_comments():
    on_make = comment(target_type="make", make=NS(creator_id=OWNER.pk, thing=NS(creator_id=OTHER.pk)))
    assert rules.comment_can_delete(OWNER, on_make) and rules.comment_can_delete(OTHER, on_make)
    stranger = NS(pk=99, is_authenticated=True)
    assert not rules.comment_can_delete(stranger, on_make)


def test_the_group_owner_deletes_topic_comments():
    on_topic = comment(target_type="group_topic", topic=NS(group=NS(creator_id=OWNER.pk)))
    assert rules.comment_can_delete(OWNER, on_topic) and not rules.comment_can_delete(OTHER, on_topic)


def test_a_deleted_comment_takes_no_reply():
    assert rules.comment_reply_blockers(comment()) == []
    assert rules.comment_reply_blockers(comment(is_deleted=True)) == [rules.REPLY_TO_DELETED]


def test_replies_nest_until_the_deepest_level_then_go_alongside():
    assert rules.comment_reply_parent_id(comment(depth=0)) == 10
    assert rules.comment_reply_parent_id(comment(depth=rules.COMMENT_MAX_DEPTH - 1, parent_id=9)) == 10
    assert rules.comment_reply_parent_id(comment(depth=rules.COMMENT_MAX_DEPTH, parent_id=9)) == 9


def test_only_a_comment_with_replies_stays_as_a_placeholder():
    assert rules.comment_becomes_placeholder(has_replies=True)
    assert not rules.comment_becomes_placeholder(has_replies=False)
