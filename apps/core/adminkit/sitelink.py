"""The admin's "View on site" link, shown only where the site's page answers for the person looking.

Django shows the link whenever a model admin names a page (`view_on_site`), whatever the page would
answer. A moderator is no Thing's creator: a draft's page, a private Thing's, or the page of a tag that
no Thing a moderator may see carries, is "not found" for them, and the link led there. A model admin
with this mixin names the rule its page applies (`site_page_visible(viewer, obj)`: the same rule as the
page's, from the app's rules or selectors), and the link is left out when the rule says no: on the item's
own admin page, and in the moderators' dashboard (`site_url_for`).

An app below the one that owns a page (apps.uploads' make photos, shown on apps.makes' make page) cannot
import that page's rule: the owner registers it here by name (`site_page_rule_register`, from its
AppConfig.ready()), and the lower app asks by name (`site_page_answers`).
"""
from collections.abc import Callable

_PAGE_RULES: dict[str, Callable[[object, int], bool]] = {}


def site_page_rule_register(name: str, rule: Callable[[object, int], bool]) -> None:
    """`rule(viewer, pk)`: whether the page `name` of the item `pk` answers for `viewer`."""
    _PAGE_RULES[name] = rule


def site_page_answers(name: str, viewer, pk: int) -> bool:
    """The registered rule of page `name` (True when none is registered: the page's app is not installed)."""
    rule = _PAGE_RULES.get(name)
    return True if rule is None else bool(rule(viewer, pk))


def site_url_for(model_admin, viewer, obj) -> str | None:
    """The site's page of `obj` as `model_admin` names it, when that page answers for `viewer`; else None."""
    url = model_admin.get_view_on_site_url(obj)
    if url is None or not model_admin_site_page_visible(model_admin, viewer, obj):
        return None
    return url


def model_admin_site_page_visible(model_admin, viewer, obj) -> bool:
    rule = getattr(model_admin, "site_page_visible", None)
    return True if rule is None else bool(rule(viewer, obj))


class SitePageAdminMixin:
    def site_page_visible(self, viewer, obj) -> bool:
        """Whether the site's page of `obj` answers for `viewer` (the admin's user)."""
        return True

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        response = super().render_change_form(  # type: ignore[misc]
            request, context, add=add, change=change, form_url=form_url, obj=obj
        )
        if obj is not None and response.context_data.get("has_absolute_url") \
                and not self.site_page_visible(request.user, obj):
            response.context_data["has_absolute_url"] = False
        return response
