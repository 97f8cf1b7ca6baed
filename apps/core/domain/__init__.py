"""Conventions of the domain every app's services, selectors and models share: domain exceptions,
write helpers, moderation, licenses, Markdown.
"""
