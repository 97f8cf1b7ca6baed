"""Group and topic paths for templates: `{% load group_tags %}` (apps.groups.links; never a query here)."""

from django import template

from apps.groups import links

register = template.Library()


@register.filter
def group_path(group):
    """`{{ group|group_path }}`: /groups/<slug>."""
    return links.group_path(group)


@register.simple_tag
def topic_path(group, topic_id):
    """`{% topic_path group topic.pk %}`: /groups/<slug>/topics/<id>, from the group the page already holds
    (a topic's own `.group` would be a query per row of a list)."""
    return links.topic_path(group, topic_id)
