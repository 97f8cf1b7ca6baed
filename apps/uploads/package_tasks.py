"""Celery entry points of Thing packages (package-url ZIP)."""
