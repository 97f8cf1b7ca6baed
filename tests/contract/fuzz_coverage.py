"""Which statuses each operation of a `make fuzz` run answered, from the live server's access log.

A green Schemathesis run says nothing about depth: an operation that answered only 404 (no such object)
or 400 (the generated body was refused) passed without its handler's success path ever running. The
fuzz harness logs `<request line> <status>` for every request and this module folds the lines into the
OpenAPI document's operations, so a run reports how many operations succeeded at least once.

    python -m tests.contract.fuzz_coverage [.run/fuzz]   # re-read the last run's files
"""
import json
import re
import sys
from collections import Counter
from pathlib import Path

METHODS = ("get", "post", "put", "patch", "delete")
ACCESS_LOG_FORMAT = "%(r)s %(s)s"  # gunicorn atoms: the raw request line (still percent-encoded), status


def operation_statuses(document: dict, lines, excluded=()) -> tuple[dict[str, Counter], Counter]:
    """`{"GET /things/{thing_id}/": Counter({200: 5, 404: 3}), …}` and the lines no operation matched;
    operations whose operationId is in `excluded` (not fuzzed) are left out."""
    routes = _routes(document, excluded)
    statuses: dict[str, Counter] = {label: Counter() for _, _, label in routes}
    unmatched: Counter = Counter()
    for line in lines:
        parsed = _parse(line)
        if parsed is None:
            continue
        method, path, status = parsed
        for route_method, pattern, label in routes:
            if route_method == method and pattern.fullmatch(path):
                statuses[label][status] += 1
                break
        else:
            unmatched[f"{method} {path}"] += 1
    return statuses, unmatched


def report(document: dict, lines, excluded=()) -> tuple[str, int, int]:
    """A table (operation, whether it succeeded, its statuses), and the counts succeeded / total. A
    success is a 2xx, or the 3xx of an operation that answers a redirect (a file download)."""
    statuses, unmatched = operation_statuses(document, lines, excluded)
    rows, reached = [], 0
    for label in sorted(statuses, key=lambda label: (label.split(" ", 1)[1], label)):
        counts = statuses[label]
        ok = any(200 <= status < 400 for status in counts)
        reached += ok
        shown = ", ".join(f"{status}×{count}" for status, count in sorted(counts.items())) or "no request"
        rows.append(f"{'ok ' if ok else '---'}  {label:<60} {shown}")
    if unmatched:
        rows.append("")
        examples = unmatched.most_common(3)
        rows.append(f"{sum(unmatched.values())} requests matched no operation (other methods…), e.g. {examples}")
    return "\n".join(rows) + "\n", reached, len(statuses)


def _routes(document: dict, excluded) -> list[tuple[str, re.Pattern, str]]:
    routes = []
    for template, item in document["paths"].items():
        parts = re.split(r"(\{[^}]+\})", template.rstrip("/"))
        # A path parameter is one non-empty segment (its value arrives percent-encoded, so it holds no
        # raw `/`): `/search//library` is the term-less library, not `/search/{term}/library`. Every
        # path answers with and without its trailing slash (docs/decisions.md: Requests).
        pattern = re.compile(
            "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts) + "/?"
        )
        literal = sum(len(part) for part in parts if not part.startswith("{"))
        for method in METHODS:
            if method in item and item[method].get("operationId") not in excluded:
                routes.append((method.upper(), pattern, f"{method.upper()} {template}", literal))
    # The most literal template wins: `/things/{thing_id}/likes` over a parameter that would match `likes`.
    routes.sort(key=lambda route: -route[3])
    return [route[:3] for route in routes]


def _parse(line: str):
    fields = line.rstrip("\n").rsplit(" ", 1)
    if len(fields) != 2 or not fields[1].isdigit():
        return None
    request_line, status = fields
    words = request_line.split(" ")
    if len(words) < 3:
        return None
    return words[0], words[1].split("?", 1)[0], int(status)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / ".run" / "fuzz"
    from tests.contract.fuzz import EXCLUDED_OPERATIONS

    document = json.loads((out / "openapi.json").read_text())
    with open(out / "access.log") as lines:
        table, reached, total = report(document, lines, EXCLUDED_OPERATIONS)
    print(table, end="")
    print(f"{reached} of {total} operations answered a success (2xx, or a download's 302) at least once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
