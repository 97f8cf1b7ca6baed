"""Placeholder: completed by the API-conventions work (echo only registered app origins)."""
