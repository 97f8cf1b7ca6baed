"""Django's PostgreSQL backend, with a dead persistent connection handled instead of tested (issue 17).

See base.py.
"""
