"""The WSGI handler (config/wsgi.py): Django's, resolving each request's path once (issue 17).

apps.core.pipeline.middleware.OptionalTrailingSlashMiddleware resolves the path first (to serve both slash forms
and to tell API calls from pages); Django's handler would resolve it again. When the middleware left its
match for the path the request still has, the handler takes it. Anything else (no match recorded, a
path changed since, a per-request urlconf) resolves as Django does.
"""
from django.core.handlers.wsgi import WSGIHandler

RESOLVED_ATTRIBUTE = "thingyard_resolved"  # (path_info, ResolverMatch), set by the middleware


class ResolvedOnceWSGIHandler(WSGIHandler):
    def resolve_request(self, request):
        resolved = getattr(request, RESOLVED_ATTRIBUTE, None)
        if resolved is not None and resolved[0] == request.path_info and not hasattr(request, "urlconf"):
            request.resolver_match = resolved[1]
            return resolved[1]
        return super().resolve_request(request)
