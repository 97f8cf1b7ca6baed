"""Celery publishing that never fails a request nor loses work (the pending-task outbox), and
the quick start's SQLite broker.
"""
