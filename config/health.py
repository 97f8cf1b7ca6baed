"""Liveness/readiness for load balancers and docker-compose: no token, no rate limit."""
from django.db import connection
from django.http import JsonResponse


def healthz(request):
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        database = True
    except Exception:  # noqa: BLE001 - any failure means "not ready"
        database = False
    return JsonResponse({"status": "ok" if database else "unavailable", "database": database},
                        status=200 if database else 503)
