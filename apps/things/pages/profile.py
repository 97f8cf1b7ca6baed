"""The Things tabs of a public profile (apps.accounts.profiles): what the user designed, and liked."""

from apps.accounts.profiles import ProfileTab, profile_tab_register
from apps.things import selectors


def register() -> None:
    profile_tab_register(
        ProfileTab(
            slug="things",
            label="Things",
            template="things/_card_grid.html",
            listing=lambda *, owner, viewer: selectors.thing_list_for_user(owner=owner, viewer=viewer),
            order=10,
            empty="No Things published yet.",
        )
    )
    profile_tab_register(
        ProfileTab(
            slug="likes",
            label="Likes",
            template="things/_card_grid.html",
            listing=lambda *, owner, viewer: selectors.thing_list_liked_by(user=owner, viewer=viewer),
            order=40,
            empty="No likes yet.",
            counted_as="like_count",
        )
    )
