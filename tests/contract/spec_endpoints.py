"""The endpoints of spec §4.1–4.9 (docs/api.md §4) as (method, path, optional path parameters).

SPEC_ENDPOINTS is a checked-in copy of the original spec's endpoint tables, so the contract tests run in
this repository alone; test_spec_coverage.py compares it with the original spec when a checkout has it
beside the repository. Regenerate it from a copy of the spec with
`python -m tests.contract.spec_endpoints path/to/api-spec.md`.
"""
import re
import sys
from pathlib import Path

_ROW = re.compile(r"^\|\s*(GET|POST|PATCH|DELETE)\s*\|\s*(/[^|\s]*)\s*\|([^|]*)\|")


def spec_endpoints_parse(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """Rows of the §4.1–4.9 tables: (method, path, the path parameters the Input column calls optional)."""
    section = text.split("## 4. Endpoints", 1)[1].split("### 4.10", 1)[0]
    endpoints = []
    for line in section.splitlines():
        match = _ROW.match(line.strip())
        if not match:
            continue
        method, path, input_text = match.groups()
        optional = tuple(
            name for name in re.findall(r"{(\w+)}", path)
            # "image_id optional", "term: optional string", "slug optional" (for {category_slug})
            if any(
                re.search(rf"(?<![\w]){re.escape(word)}\b[^|.]*?\boptional\b", input_text)
                for word in {name, name.split("_")[-1]}
            )
        )
        endpoints.append((method, path, optional))
    return endpoints


def path_shapes(path: str, optional: tuple[str, ...]) -> list[str]:
    """The path with every parameter as `{}`, with and without each optional parameter, no trailing /."""
    shapes = {path}
    for name in optional:
        shapes |= {shape.replace("{" + name + "}", "") for shape in shapes}
    return sorted(normalize(shape) for shape in shapes)


def normalize(path: str) -> str:
    """`/things/{thing_id}/` and `/things/{id}` are one shape: `/things/{}` (both slash forms answer)."""
    return re.sub(r"{\w+}", "{}", path).rstrip("/") or "/"

# Generated with `python -m tests.contract.spec_endpoints` (spec §4.1–4.9, in the spec's order).
SPEC_ENDPOINTS = [
    ('GET', '/users/{username}/', ()),
    ('PATCH', '/users/{username}/', ()),
    ('DELETE', '/users/{username}/', ()),
    ('GET', '/users/{username}/search/{term}', ('term',)),
    ('GET', '/users/{username}/things', ()),
    ('GET', '/users/{username}/favorites', ()),
    ('GET', '/users/{username}/likes', ()),
    ('GET', '/users/{username}/copies', ()),
    ('GET', '/users/{username}/collections/{all}', ('all',)),
    ('GET', '/users/{username}/downloads', ()),
    ('POST', '/users/{username}/verify-account', ()),
    ('GET', '/users/{username}/event-count', ()),
    ('GET', '/users/{username}/all-collected-things', ()),
    ('GET', '/users/unread-message-count', ()),
    ('POST', '/users/{username}/followers', ()),
    ('DELETE', '/users/{username}/followers', ()),
    ('POST', '/users/{username}/avatar-image', ()),
    ('POST', '/users/{username}/cover-image', ()),
    ('GET', '/things/{id}/', ()),
    ('GET', '/things/{id}/hack-the-pandemic-thing', ()),
    ('GET', '/things/{id}/images/{image_id}', ('image_id',)),
    ('PATCH', '/things/{id}/images/{image_id}', ()),
    ('DELETE', '/things/{id}/images/{image_id}', ()),
    ('GET', '/things/{id}/files/{file_id}', ('file_id',)),
    ('DELETE', '/things/{id}/files/{file_id}', ()),
    ('POST', '/things/{id}/files', ()),
    ('GET', '/things/{id}/likes', ()),
    ('GET', '/things/{id}/ancestors', ()),
    ('GET', '/things/{id}/derivatives', ()),
    ('GET', '/things/{id}/tags', ()),
    ('GET', '/things/{id}/categories', ()),
    ('PATCH', '/things/{id}/', ()),
    ('POST', '/things/', ()),
    ('DELETE', '/things/{id}/', ()),
    ('POST', '/things/{id}/publish', ()),
    ('GET', '/things/{id}/copies', ()),
    ('POST', '/things/{id}/copies', ()),
    ('POST', '/things/{id}/likes', ()),
    ('DELETE', '/things/{id}/likes', ()),
    ('GET', '/things/{id}/package-url', ()),
    ('GET', '/things/{id}/prints', ()),
    ('GET', '/things/{id}/threaded-comments', ()),
    ('GET', '/things/{id}/comments', ()),
    ('GET', '/things/{id}/root-comments', ()),
    ('POST', '/things/{id}/comments', ()),
    ('POST', '/things/{id}/toggle-watch', ()),
    ('GET', '/files/{id}/', ()),
    ('POST', '/files/{id}/finalize', ()),
    ('GET', '/files/{id}/download', ()),
    ('GET', '/copies/{id}/', ('id',)),
    ('GET', '/copies/{id}/images', ()),
    ('POST', '/copies/{id}/images', ()),
    ('PATCH', '/copies/{id}/images/{image_id}', ()),
    ('DELETE', '/copies/{id}/images/{image_id}', ()),
    ('PATCH', '/copies/{id}/', ()),
    ('DELETE', '/copies/{id}/', ()),
    ('POST', '/copies/{id}/likes', ()),
    ('DELETE', '/copies/{id}/likes', ()),
    ('GET', '/copies/{id}/threaded-comments', ()),
    ('GET', '/copies/{id}/root-comments', ()),
    ('GET', '/copies/{id}/comments', ()),
    ('POST', '/copies/{id}/comments', ()),
    ('GET', '/collections/{id}/', ('id',)),
    ('GET', '/collections/{id}/things', ()),
    ('POST', '/collections/', ()),
    ('POST', '/collections/{collection_id}/thing/{thing_id}', ()),
    ('DELETE', '/collections/{collection_id}/thing/{thing_id}', ()),
    ('PATCH', '/collections/{id}/', ()),
    ('DELETE', '/collections/{id}/', ()),
    ('GET', '/comments/{id}/', ()),
    ('GET', '/comments/{parentId}/replies', ()),
    ('POST', '/comments/', ()),
    ('POST', '/comments/{id}/reply', ()),
    ('PATCH', '/comments/{id}/', ()),
    ('DELETE', '/comments/{id}/', ()),
    ('GET', '/search/{term}/', ('term',)),
    ('GET', '/search/{term}/library', ('term',)),
    ('GET', '/search/{tag}/tag', ('tag',)),
    ('GET', '/search/{term}/autocomplete', ()),
    ('GET', '/categories/{category_slug}/', ('category_slug',)),
    ('GET', '/categories/{category_slug}/things', ()),
    ('GET', '/tags/{tag}/things', ()),
    ('GET', '/tags/{tag}/', ('tag',)),
    ('GET', '/groups/{id}/', ('id',)),
    ('POST', '/groups/', ()),
    ('POST', '/groups/{id}/image', ()),
    ('PATCH', '/groups/{id}/', ()),
    ('GET', '/groups/{id}/group-topics', ()),
    ('POST', '/groups/{id}/group-topics', ()),
    ('GET', '/groups/{id}/things', ()),
    ('POST', '/groups/{id}/things/{thing_id}', ()),
    ('DELETE', '/groups/{id}/things/{thing_id}', ()),
    ('PATCH', '/groups/{id}/things/{thing_id}', ()),
    ('GET', '/groups/{id}/members', ()),
    ('POST', '/groups/{group_id}/members', ()),
    ('DELETE', '/groups/{group_id}/members/{user_id}', ('user_id',)),
    ('GET', '/group-topics/{id}/', ()),
    ('PATCH', '/group-topics/{id}/', ()),
    ('POST', '/group-topics/{id}/pin', ()),
    ('DELETE', '/group-topics/{id}/pin', ()),
    ('GET', '/group-topics/{id}/threaded-comments', ()),
    ('GET', '/group-topics/{id}/comments', ()),
    ('POST', '/group-topics/{id}/comments', ()),
    ('GET', '/orders/{id}/', ('id',)),
    ('PATCH', '/orders/{id}/', ()),
]


if __name__ == "__main__":
    for row in spec_endpoints_parse(Path(sys.argv[1]).read_text()):
        print(f"    {row!r},")
