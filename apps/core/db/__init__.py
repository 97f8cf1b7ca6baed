"""The database: Django's PostgreSQL backend with dead-connection recovery (ENGINE
`apps.core.db.postgresql`) and querysets compiled to SQL once per process.
"""
