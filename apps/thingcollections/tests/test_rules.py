from types import SimpleNamespace

from apps.thingcollections import rules


def _user(pk):
    return SimpleNamespace(pk=pk, is_authenticated=True)


def _app(pk):
    return SimpleNamespace(pk=pk)


def test_only_the_owner_may_add():
    collection = SimpleNamespace(creator_id=1, created_by_app_id=7)
    assert rules.collection_can_add_thing(_user(1), collection)
    assert not rules.collection_can_add_thing(_user(2), collection)


def test_an_app_may_edit_only_collections_it_created():
    collection = SimpleNamespace(creator_id=1, created_by_app_id=7)
    assert rules.collection_can_edit(_user(1), collection, application=_app(7))
    assert not rules.collection_can_edit(_user(1), collection, application=_app(8))
    assert not rules.collection_can_edit(_user(2), collection, application=_app(7))


def test_the_site_session_is_not_limited_by_app_rules():
    collection = SimpleNamespace(creator_id=1, created_by_app_id=7)
    entry = SimpleNamespace(added_by_app_id=7)
    assert rules.collection_can_edit(_user(1), collection, application=None)
    assert rules.collection_can_remove_thing(_user(1), collection, entry, application=None)


def test_no_app_may_edit_a_collection_created_on_the_site():
    collection = SimpleNamespace(creator_id=1, created_by_app_id=None)
    assert not rules.collection_can_edit(_user(1), collection, application=_app(7))


def test_an_app_may_remove_only_the_things_it_added():
    collection = SimpleNamespace(creator_id=1, created_by_app_id=None)
    assert rules.collection_can_remove_thing(_user(1), collection, SimpleNamespace(added_by_app_id=7), application=_app(7))
    assert not rules.collection_can_remove_thing(
        _user(1), collection, SimpleNamespace(added_by_app_id=8), application=_app(7)
    )
