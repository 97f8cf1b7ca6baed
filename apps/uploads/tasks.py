"""Celery entry points of the upload flow (autodiscovered): each takes ids and calls one service."""
