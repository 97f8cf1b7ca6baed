"""Reads of the OAuth provider."""
import hashlib
from collections.abc import Callable
from functools import lru_cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connection
from django.utils import timezone
from django.utils.functional import cached_property
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.core.db import statement_cursor
from apps.core.db.compiled import ReadWithToken
from apps.core.security import throttle
from apps.oauth import rules
from apps.oauth.models import AppAuthorization


def _token_cache_seconds() -> int:
    # settings.OAUTH_TOKEN_CACHE_SECONDS: short, it bounds how long a row could outlive a change whose
    # invalidation was lost (Redis unreachable at that moment); invalidation does the rest.
    return settings.OAUTH_TOKEN_CACHE_SECONDS


def token_cache_key(checksum: str) -> str:
    """The token row's key in token_cache(). One key for every release: a revocation handled by any
    release's process drops the row every other one reads (an upgrade's old and new processes serve side
    by side). What the row's tuple means is checked on every read instead (_TokenJoin.shape)."""
    return f"oauth-token:{checksum}"


def token_cache():
    """The cache alias of the token rows: `state`, whose keys carry no release (settings.cache_aliases)."""
    return caches["state"]


# checksum → (user id, application id) of tokens this process has seen (apps.oauth.fastpath derives its
# keys from it before the token's row is read). A token never changes owner, so an entry is never wrong,
# only possibly about a token since revoked, which the cached row's absence then tells.
_TOKEN_OWNERS: dict[str, tuple[int | None, int | None]] = {}
_TOKEN_OWNERS_MAX = 50_000


def token_owner_memo(checksum: str) -> tuple[int | None, int | None] | None:
    return _TOKEN_OWNERS.get(checksum)


def _token_owner_note(checksum: str, user_id, application_id) -> None:
    if len(_TOKEN_OWNERS) >= _TOKEN_OWNERS_MAX:
        _TOKEN_OWNERS.clear()  # bounded: a process that saw that many tokens starts over
    _TOKEN_OWNERS[checksum] = (user_id, application_id)


def token_checksum(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_cache_drop(token: str) -> None:
    """Forget the cached row of this raw token (its user's row changed under it)."""
    token_cache().delete(token_cache_key(hashlib.sha256(token.encode("utf-8")).hexdigest()))


def application_get_by_client_id(*, client_id: str):
    """The Application with this client id, or None."""
    if not client_id or "\x00" in client_id:
        return None
    return get_application_model().objects.select_related("user").filter(client_id=client_id).first()


def application_user_count(*, application) -> int:
    """How many distinct users have authorized `application` (what the 10-user limit counts)."""
    return AppAuthorization.objects.filter(application=application).count()


def application_user_is_counted(*, application, user) -> bool:
    return AppAuthorization.objects.filter(application=application, user=user).exists()


def application_can_serve_user(*, application, user) -> bool:
    """Whether `user` may authorize `application` now (spec §8: unapproved apps serve ≤ N users)."""
    if application.is_approved:
        return True
    return rules.application_can_serve_user(
        is_approved=False,
        user_is_counted=application_user_is_counted(application=application, user=user),
        user_count=application_user_count(application=application),
    )


def application_can_issue_token(*, application, user) -> bool:
    if application.is_approved:
        return True
    return rules.application_can_issue_token(
        is_approved=False, user_is_counted=application_user_is_counted(application=application, user=user)
    )


def authorization_list_for_user(*, user):
    """The apps `user` has authorized, newest first (the /account/apps page)."""
    return (
        AppAuthorization.objects.filter(user=user)
        .select_related("application", "application__user")
        .order_by("-created", "-pk")
    )


def authorization_get_for_user(*, user, application_id: int):
    return AppAuthorization.objects.select_related("application").filter(
        user=user, application_id=application_id
    ).first()


def access_token_get_active(
    *, token: str, row=None, with_token: Callable[[], ReadWithToken | None] | None = None
):
    """The live AccessToken with this value, its user and application loaded, or None.

    Every API request runs this, so it is one hand-written join on DOT's indexed checksum, turned into
    model instances with Model.from_db: the ORM's select_related over these two wide models cost
    about 1.4 ms to compile per request against 0.2 ms for the query itself (make bench).

    The row is kept in the cache for settings.OAUTH_TOKEN_CACHE_SECONDS (issue 17: the lookup was ~6 % of a request),
    keyed by the checksum. Revocation still takes effect at once: deleting or changing the token, its
    user or its application drops the cached row (apps.oauth.signals); the expiry and the user's
    `is_active` are checked on every request, cached row or not. `row`: the cached row when the caller
    already read it (apps.oauth.fastpath.prefetch), checked as one read here. `with_token()`: the view's
    first statement, read in the same statement as the row when the row is read from the database
    (apps.core.db.compiled.ReadWithToken); called only then.
    """
    if not token:
        return None
    checksum = hashlib.sha256(token.encode("utf-8")).hexdigest()
    key = token_cache_key(checksum)
    seconds = _token_cache_seconds()
    if row is None and seconds:
        row = token_cache().get(key)
    if row is not None:
        row = _ACTIVE_TOKEN_SQL.cached_row(row)  # None: cached by code that shaped it otherwise
    cached = row is not None
    if row is None:
        row = _ACTIVE_TOKEN_SQL.read(checksum, with_token() if with_token is not None else None)
        if row is None:
            return None
        if seconds:
            # Only what authentication needs: no password hash, no whole user row (issue 22, finding 6).
            token_cache().set(key, _ACTIVE_TOKEN_SQL.cached(row), timeout=seconds)
    access_token = _ACTIVE_TOKEN_SQL.build(row, cached=cached)
    if seconds:
        _token_owner_note(checksum, access_token.user_id, access_token.application_id)
    if access_token.expires <= timezone.now():
        return None
    if access_token.user_id is not None and not access_token.user.is_active:
        return None
    return access_token


class _TokenJoin:
    """SELECT token, user and application columns in one row; built lazily (models must be ready).

    The query reads the user's row but its password hash (`/users/me` serialises the rest); of the token
    and the application only what authentication, permissions and rate limiting read: any other field
    loads on first access, as a deferred field does.

    What the cache keeps of a row (`cached`) is narrower (docs/security.md, issue 22 finding 6): the
    token's and application's fields above and, of the user, only what authentication and the cached
    read path check (USER_CACHED_FIELDS). A user built from a cached row loads the rest of its profile in
    one query when a view first needs it (apps.accounts.models.User.refresh_from_db).
    """

    TOKEN_FIELDS = ("id", "user_id", "application_id", "expires", "scope", "created")
    USER_NEVER_READ = ("password",)
    USER_CACHED_FIELDS = ("id", "username", "is_active", "is_staff", "is_superuser", "last_active")
    APPLICATION_FIELDS = (
        "id", "client_id", "name", "user_id", "app_type", "approval_state", "client_type", "last_used_at",
        "wire_version",
    )

    AUTHORIZATION_FIELDS = ("id", "last_used_at")

    @cached_property
    def _models(self):
        return get_access_token_model(), get_user_model(), get_application_model(), AppAuthorization

    @staticmethod
    def _pick(model, names):
        # In the model's own field order: Model.from_db fills deferred fields by that order.
        wanted = {model._meta.get_field(name).attname for name in names}
        return [field for field in model._meta.concrete_fields if field.attname in wanted]

    @cached_property
    def _fields(self):
        """The columns the query reads, per model."""
        token_model, user_model, app_model, auth_model = self._models
        return (
            self._pick(token_model, self.TOKEN_FIELDS),
            [f for f in user_model._meta.concrete_fields if f.name not in self.USER_NEVER_READ],
            self._pick(app_model, self.APPLICATION_FIELDS),
            self._pick(auth_model, self.AUTHORIZATION_FIELDS),
        )

    @cached_property
    def _cached_fields(self):
        """The columns the cache keeps, per model."""
        token_fields, _user_fields, app_fields, auth_fields = self._fields
        return (token_fields, self._pick(self._models[1], self.USER_CACHED_FIELDS), app_fields, auth_fields)

    @cached_property
    def _cached_positions(self) -> tuple[int, ...]:
        """Where each cached column sits in the query's row."""
        positions: list[int] = []
        start = 0
        for fields, kept in zip(self._fields, self._cached_fields):
            names = [field.attname for field in fields]
            positions.extend(start + names.index(field.attname) for field in kept)
            start += len(names)
        return tuple(positions)

    def cached(self, row) -> tuple:
        """What the cache keeps of a query's row: (shape, the cached columns)."""
        return (self.shape, tuple(row[index] for index in self._cached_positions))

    def cached_row(self, value):
        """The cached columns a value of `cached` holds, or None for a value of another shape."""
        if isinstance(value, tuple) and len(value) == 2 and value[0] == self.shape:
            return value[1]
        return None

    @cached_property
    def shape(self) -> str:
        """What a cached row's tuple means: each model's cached columns (attribute and field class) in order.
        Every release keeps the rows under one key (token_cache_key); a release whose code reads the tuple
        otherwise finds another shape, takes the value for a miss and reads the row from the database."""
        described = [
            (model._meta.label, [(field.attname, type(field).__name__) for field in fields])
            for model, fields in zip(self._models, self._cached_fields)
        ]
        return hashlib.blake2b(repr(described).encode(), digest_size=6).hexdigest()

    @cached_property
    def sql(self) -> str:
        token_model, user_model, app_model, auth_model = self._models
        quote = connection.ops.quote_name
        columns = ", ".join(
            f"{alias}.{quote(field.column)}"
            for alias, fields in zip(("t", "u", "a", "z"), self._fields)
            for field in fields
        )
        return (
            f"SELECT {columns} FROM {quote(token_model._meta.db_table)} t "
            f"LEFT JOIN {quote(user_model._meta.db_table)} u ON u.{quote('id')} = t.{quote('user_id')} "
            f"LEFT JOIN {quote(app_model._meta.db_table)} a ON a.{quote('id')} = t.{quote('application_id')} "
            # The user's consent row, for its last-use stamp (apps.oauth.usage): unique on (app, user).
            f"LEFT JOIN {quote(auth_model._meta.db_table)} z ON z.{quote('application_id')} = t.{quote('application_id')} "
            f"AND z.{quote('user_id')} = t.{quote('user_id')} "
            f"WHERE t.{quote('token_checksum')} = %s"
        )

    def read(self, checksum: str, with_token: ReadWithToken | None = None):
        """The token's row (None: no such token), and `with_token`'s rows joined to it when it can be."""
        joined = self._joined(with_token) if with_token is not None else None
        if joined is None:
            with statement_cursor() as cursor:
                cursor.execute(self.sql, [checksum])
                return cursor.fetchone()
        sql, params = joined
        with statement_cursor() as cursor:
            cursor.execute(sql, [checksum, *params])
            rows = cursor.fetchall()
        if not rows:
            return None
        width = len(self._columns)
        row = rows[0][:width]
        assert with_token is not None
        end = -1 if with_token.window is not None else None  # a page's rows end with their ordinal
        with_token.read([found[width:end] for found in rows], row[self._viewer_column])
        return row

    def _joined(self, with_token: ReadWithToken):
        """(SQL, parameters after the checksum's) of the token's statement with the view's joined to it:
        every row is the token's columns then the view's (NULLs when the view's statement has no row)."""
        if connection.vendor != "postgresql":
            return None  # LATERAL: the quick start's SQLite reads the two one after the other
        found = with_token.lateral(f"tok.{self._columns[self._viewer_column]}")
        if found is None:
            return None
        lateral, params = found
        page = with_token.window is not None
        return _joined_text(self._token_from, self._first_row_only if page else "", lateral, page), params

    @cached_property
    def _token_from(self) -> str:
        """The token's statement as the joined statement's `tok`, its columns named `_columns`."""
        return f"({self.sql}) AS tok({', '.join(self._columns)})"

    @cached_property
    def _first_row_only(self) -> str:
        """The select list of a joined page: the token's columns where the page's ordinal (`tok_n`, the
        last column) is 1 or NULL (no row), NULL in later rows; then the page's columns."""
        return ", ".join(f"CASE WHEN v.tok_n > 1 THEN NULL ELSE tok.{name} END" for name in self._columns) + ", v.*"

    @cached_property
    def _columns(self) -> list[str]:
        """Names for the token statement's columns where it is joined to another (its own repeat `id`)."""
        return [f"c{index}" for index in range(sum(len(fields) for fields in self._fields))]

    @cached_property
    def _viewer_column(self) -> int:
        """Where the token's user id sits in the row."""
        return [field.attname for field in self._fields[0]].index("user_id")

    def _converters_for(self, parts):
        """Per column, the value converters the ORM's compiler would apply (SQLite returns datetimes
        naive, for one); empty on PostgreSQL for these fields."""
        converters = []
        for model, fields in zip(self._models, parts):
            for field in fields:
                col = field.get_col(model._meta.db_table)
                found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
                converters.append((found, col))
        return converters

    @cached_property
    def _converters(self):
        return self._converters_for(self._fields)

    @cached_property
    def _cached_converters(self):
        return self._converters_for(self._cached_fields)

    def build(self, row, *, cached: bool = False):
        """Model instances from a query's row, or from a cached one (`cached`)."""
        if self._converting[cached]:
            converters = self._cached_converters if cached else self._converters
            row = [self._convert(converters, index, value) for index, value in enumerate(row)]
        parts: list = []
        start = 0
        # The statement ran on the default database (statement_cursor()); `connection.alias` would look the
        # thread's connection up again for each model.
        for model, names in zip(self._models, self._attnames[cached]):
            values = row[start : start + len(names)]
            start += len(names)
            parts.append(model.from_db(DEFAULT_DB_ALIAS, names, values) if values[0] is not None else None)
        access_token, user, application, authorization = parts
        assert access_token is not None  # the statement's first model: its columns are never NULL
        # What select_related would have cached: token.user / token.application cost no query.
        access_token._state.fields_cache["user"] = user
        access_token._state.fields_cache["application"] = application
        # The user's consent to the app (None without one), for apps.oauth.usage.
        access_token.thingyard_authorization = authorization
        return access_token

    @cached_property
    def _converting(self) -> tuple[bool, bool]:
        """Whether any column needs a converter at all (none on PostgreSQL): (query row, cached row)."""
        return any(found for found, _ in self._converters), any(found for found, _ in self._cached_converters)

    @cached_property
    def _attnames(self) -> tuple[list[list[str]], ...]:
        """Per model, the attribute names of its columns: (query row, cached row)."""
        return tuple(
            [[field.attname for field in fields] for fields in parts] for parts in (self._fields, self._cached_fields)
        )

    @staticmethod
    def _convert(converters, index: int, value):
        found, col = converters[index]
        for converter in found:
            value = converter(value, col, connection)
        return value


@lru_cache(maxsize=512)
def _joined_text(token_from: str, first_row_only: str, lateral: str, page: bool) -> str:
    """_TokenJoin._joined's text, the same string object for every request that joins the same statement:
    psycopg keeps a statement's column loaders while it runs the same text object again
    (apps.core.db.postgresql.base.KeptPreparedCursor). A list's every page size and offset is a text of
    its own, hence the bound."""
    if not page:  # at most one row: the token's columns come with it
        return f"SELECT tok.*, v.* FROM {token_from} LEFT JOIN LATERAL ({lateral}) AS v ON TRUE"
    # A page: the token's columns in its first row only, NULL in the others. Repeated in each of 30 rows,
    # they cost more to send and to read than a second statement would (issue 24).
    numbered = f"SELECT s.*, row_number() OVER () AS tok_n FROM ({lateral}) AS s"
    return f"SELECT {first_row_only} FROM {token_from} LEFT JOIN LATERAL ({numbered}) AS v ON TRUE"


_ACTIVE_TOKEN_SQL = _TokenJoin()


def login_locked_for(*, username: str | None, address: str | None) -> int:
    """Seconds until a log-in as `username` from `address` may be tried again (0: now)."""
    return max(
        throttle.locked_for(rules.LOGIN_ACCOUNT_LIMIT, rules.login_account_key(username)),
        throttle.locked_for(rules.LOGIN_ADDRESS_LIMIT, address),
    )


def client_auth_locked_for(*, client_id: str | None, address: str | None) -> int:
    """Seconds until client authentication as `client_id` from `address` may be tried again (0: now)."""
    return max(
        throttle.locked_for(rules.CLIENT_ID_LIMIT, client_id),
        throttle.locked_for(rules.CLIENT_ADDRESS_LIMIT, address),
    )
