"""The cache: Django's Redis cache, failing open (settings CACHES BACKEND).
"""
