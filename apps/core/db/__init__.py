"""The database: Django's PostgreSQL backend with dead-connection recovery (ENGINE
`apps.core.db.postgresql`) and querysets compiled to SQL once per process.
"""
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import F, Func, IntegerField, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce


def statement_cursor(using: str = DEFAULT_DB_ALIAS):
    """A cursor for a statement whose text is the same on every call (only its parameters change):
    prepared once per connection on PostgreSQL (apps.core.db.postgresql), an ordinary cursor elsewhere
    (the quick start's SQLite)."""
    connection = connections[using]
    prepared = getattr(connection, "prepared_cursor", None)
    return prepared() if prepared is not None else connection.cursor()


def count_subquery(queryset: QuerySet) -> Coalesce:
    """A correlated `SELECT COUNT(*)` of `queryset` (filtered on an OuterRef) as an annotation: one count
    per row inside the same statement, never a statement per row."""
    counted = queryset.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))
