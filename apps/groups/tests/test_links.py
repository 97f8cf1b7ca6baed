"""apps.groups.links: the one spelling of a group's and a topic's site paths (docs/site.md)."""

from django.template import engines

from apps.core.pipeline.api import site_url
from apps.groups.links import group_path, group_public_url, topic_path
from apps.groups.models import Group


def test_a_groups_path_is_under_its_slug():
    assert group_path(Group(slug="resin-printers")) == "/groups/resin-printers"


def test_a_groups_path_takes_the_slug_alone():
    # a batch of comments holds (slug, topic id) pairs, not rows: the path needs no query
    assert group_path("pla_2") == "/groups/pla_2"


def test_a_topics_path_is_under_its_groups_path():
    assert topic_path(Group(slug="resin"), 42) == "/groups/resin/topics/42"
    assert topic_path("resin", 42) == "/groups/resin/topics/42"


def test_a_topics_sub_path_follows_its_id():
    assert topic_path("resin", 42, sub="comments") == "/groups/resin/topics/42/comments"


def test_an_anchor_is_appended_by_the_caller():
    assert topic_path("resin", 42) + "#comment-12" == "/groups/resin/topics/42#comment-12"


def test_the_absolute_form_is_the_site_url_of_the_path(settings):
    settings.SITE_URL = "https://thingyard.example"
    assert site_url(group_path("resin")) == "https://thingyard.example/groups/resin"
    assert site_url(topic_path("resin", 42) + "#comment-12") == (
        "https://thingyard.example/groups/resin/topics/42#comment-12"
    )


def test_templates_spell_the_same_paths():
    template = engines["django"].from_string(
        '{% load group_tags %}{{ group|group_path }}/join {% topic_path group 42 %}'
    )
    assert template.render({"group": Group(slug="resin")}) == "/groups/resin/join /groups/resin/topics/42"


def test_the_public_url_is_the_absolute_group_path(settings):
    settings.SITE_URL = "https://thingyard.example"
    assert group_public_url(Group(slug="resin")) == "https://thingyard.example/groups/resin"
