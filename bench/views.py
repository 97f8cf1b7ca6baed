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
