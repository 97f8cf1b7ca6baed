"""PostgreSQL's plan of a statement, for the tests that assert which index answers it."""
from django.db import connection


def plan_on_a_small_table(sql: str, params=None) -> str:
    """EXPLAIN's text for `sql` inside the test's transaction, with sequential and bitmap scans and sorts
    priced out: a test's few rows make any plan cheap, so the planner is asked what it would use for a
    table large enough that those cost more (the settings end with the transaction)."""
    with connection.cursor() as cursor:
        for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
            cursor.execute(f"SET LOCAL {setting} = off")
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())
