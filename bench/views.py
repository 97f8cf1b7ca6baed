"""The framework floor: a plain Django view (no DRF, no auth, no database) answering a JSON object
as large as a real `GET /things/{id}/` body, serialised on every request as DRF would."""
import json
import os
from functools import lru_cache

from django.http import JsonResponse

# Set by bench.server to a file holding the body the floor must match (one real Thing detail response).
PAYLOAD_ENV = "BENCH_FLOOR_PAYLOAD"
FALLBACK_BYTES = 2500


@lru_cache(maxsize=1)
def floor_payload() -> dict:
    path = os.environ.get(PAYLOAD_ENV)
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    return synthetic_payload(FALLBACK_BYTES)


def synthetic_payload(size: int) -> dict:
    """A Thing-shaped object whose compact JSON is exactly `size` bytes (when no real Thing exists)."""
    data = {"id": 1, "name": "Parametric Cable Clip", "url": "https://api.thingyard.example/thing:1",
            "is_published": True, "like_count": 12, "description": ""}
    data["description"] = "x" * max(0, size - len(_dumps(data)))
    return data


def _dumps(data) -> bytes:
    # DRF's JSONRenderer: compact separators, UTF-8 rather than \\u escapes.
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def floor(request):
    return JsonResponse(floor_payload(), json_dumps_params={"separators": (",", ":"), "ensure_ascii": False})


# The rate-limit bucket the floor with waits counts in (never the API's: its limit is lifted in the bench).
FLOOR_WAITS_BUCKET = "bench:floor-waits"


def floor_waits(request, thing_id: int):
    """The floor plus the two round trips every API read makes and the floor never does (issue 24): one
    count in Redis as the rate limit counts (apps.core.pipeline.ratelimit, the same script on the thread's
    kept connection) and one statement in PostgreSQL reading the Thing's version, as the kept body's check
    reads it. Nothing else: no authentication, no DRF, the floor's body. Its ratio to the floor is what
    the waits alone leave of the floor's throughput, the ceiling of any read that makes them."""
    from django.db import connection

    from apps.core.pipeline.ratelimit import rate_limit_hit

    rate_limit_hit(FLOOR_WAITS_BUCKET)
    with connection.cursor() as cursor:
        cursor.execute("SELECT version FROM things_thing WHERE id = %s", [thing_id])
        cursor.fetchone()
    return floor(request)
