"""Celery entry points of file and image processing: each takes ids and calls one service."""
