"""The one place that decides how search runs: PostgreSQL full text, or plain `icontains` elsewhere.

The quick start (`make run`) runs on SQLite, which has no tsvector; there every search falls back to
case-insensitive substring matching so the site still searches. Production and tests run PostgreSQL.
"""
from django.db import connection as default_connection


def full_text_search_enabled(connection=None) -> bool:
    """True when the database can run the weighted tsvector search (and has its GIN index)."""
    return (connection or default_connection).vendor == "postgresql"
