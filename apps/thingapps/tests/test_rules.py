"""Pure rules of Thing apps and the SDK host."""

import pytest

from apps.thingapps import rules


def test_only_approved_thing_apps_with_an_application_url_are_listed():
    assert rules.thing_app_is_listed(
        app_type="thing", approval_state="approved", application_url="https://a.example/"
    )
    assert not rules.thing_app_is_listed(
        app_type="web", approval_state="approved", application_url="https://a.example/"
    )
    assert not rules.thing_app_is_listed(
        app_type="thing", approval_state="pending", application_url="https://a.example/"
    )
    assert not rules.thing_app_is_listed(
        app_type="thing", approval_state="rejected", application_url="https://a.example/"
    )
    assert not rules.thing_app_is_listed(app_type="thing", approval_state="approved", application_url="")
    assert not rules.thing_app_is_listed(
        app_type="thing", approval_state="approved", application_url="ftp://a.example/"
    )


def test_an_app_served_from_the_sites_own_origin_is_never_embedded():
    sites = ["https://thingyard.example", "http://localhost:8000/"]
    assert rules.thing_app_embed_blockers(application_url="https://app.example/x", site_urls=sites) == []
    assert rules.thing_app_embed_blockers(application_url="https://thingyard.example/apps/x", site_urls=sites)
    assert rules.thing_app_embed_blockers(application_url="HTTPS://Thingyard.example:443/", site_urls=sites)
    assert rules.thing_app_embed_blockers(application_url="http://localhost:8000/app", site_urls=sites)
    assert rules.thing_app_embed_blockers(application_url="http://localhost:8001/app", site_urls=sites) == []
    assert rules.thing_app_embed_blockers(application_url="javascript:alert(1)", site_urls=sites)


@pytest.mark.parametrize(
    "raw, expected",
    [
        (None, []),
        ("", []),
        ("stl", ["stl"]),
        ("stl, .OBJ ,3mf", ["stl", "obj", "3mf"]),
        ("stl,stl,STL", ["stl"]),
        (["stl", ".obj"], ["stl", "obj"]),
        (",,", []),
        ("x" * 17, []),
    ],
)
def test_file_select_extensions_are_a_clean_list(raw, expected):
    assert rules.extension_list_parse(raw) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        (1, True),
        (0, False),
        ("1", True),
        ("0", False),
        (True, True),
        ("true", True),
        ("on", True),
        ("false", False),
        (None, None),
        ("", None),
        ("maybe", None),
        (2, None),
    ],
)
def test_thing_save_flags_are_numbers_or_booleans(value, expected):
    assert rules.flag_parse(value) is expected


def test_thing_save_tags_are_comma_separated():
    assert rules.tags_text_parse("iframe, app ,, 3d printing") == ["iframe", "app", "3d printing"]
    assert rules.tags_text_parse(["a", " b "]) == ["a", "b"]
    assert rules.tags_text_parse(None) == []


def test_the_iframe_url_carries_the_thing_in_the_query_and_the_token_only_in_the_fragment():
    src = rules.iframe_src(
        application_url="https://app.example/tool?mode=x&thing_id=9#old",
        thing_id=42,
        access_token="abc123",
        expires_in=3600,
    )
    assert src == (
        "https://app.example/tool?mode=x&thing_id=42"
        "#access_token=abc123&token_type=bearer&expires_in=3600&thing_id=42"
    )
    assert rules.iframe_src(
        application_url="https://app.example", thing_id=1, access_token="t", expires_in=-5
    ) == ("https://app.example/?thing_id=1#access_token=t&token_type=bearer&expires_in=0&thing_id=1")


def test_the_sandbox_never_lets_the_app_navigate_the_thing_page():
    assert set(rules.IFRAME_SANDBOX.split()) == {
        "allow-scripts",
        "allow-forms",
        "allow-same-origin",
        "allow-popups",
    }
