"""The admin kit: the base classes and the moderators' dashboard every app's admin module uses.
"""
