"""What happens to a user's data elsewhere when the account is deleted (accounts.services.user_delete).

Apps built on accounts keep counters of what users did (like_count, make_count, comment_count …); the
database cascade alone would delete the rows and leave those counts too high. So each such app
registers a release hook from its AppConfig.ready():

    user_release_register("things.likes", services.thing_likes_release_for_user)

and user_delete calls every hook, in registration order (INSTALLED_APPS order), inside its transaction,
before the user row goes. A hook takes `user=` and must keep the locking order of its own services.
Accounts imports none of those apps: the arrow points down (NetBox-style registry).
"""
from collections.abc import Callable

_RELEASE_HOOKS: dict[str, Callable[..., None]] = {}


def user_release_register(name: str, hook: Callable[..., None]) -> None:
    """Register `hook(user=…)` under `name` (registering a name again replaces its hook)."""
    _RELEASE_HOOKS[name] = hook


def user_release_hooks() -> list[Callable[..., None]]:
    return list(_RELEASE_HOOKS.values())
