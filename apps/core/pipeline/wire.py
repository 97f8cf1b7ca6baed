"""The table of changes per wire version (docs/decisions.md: Wire versions), as payment APIs keep theirs.

There is one set of serializers; each builds the `spec` shape (the base) and hands it to `apply` with
its kind. A version other than `spec` is a table, below, of what it changes in each kind of object:

- `Drop(names)`: keys the version does not send;
- `As01(names)`: booleans sent as the integers 0 and 1;
- `Provide(name, schema)`: a key whose value the serializer computes for this version only, by its
  method `wire_<name>(obj)` (a value the base shape does not have, or has with another type); a method
  may answer `batch.Later(...)` for a value read once for the whole answer (apps.core.pipeline.batch);
- `ProvideForNull(name, schema)`: as `Provide`, but only where the base shape has null (or no key): a
  value the base shape computes already is kept, not computed again;
- `Const(name, value, schema)`: a key with a fixed value.

The same entries change the OpenAPI document of the version (`schema_hook`): each kind names the
components its serializers produce. Adding a version is adding a table; fields served by every version
(the additive ones) are plain fields of the serializers, not entries here.
"""
from dataclasses import dataclass

from apps.core.pipeline import batch, versions
from apps.core.pipeline.statuses import NO_BODY_DESCRIPTION


@dataclass(frozen=True)
class Drop:
    names: tuple[str, ...]

    def apply(self, data: dict, obj, serializer) -> None:
        for name in self.names:
            data.pop(name, None)

    def schema(self, component: dict) -> None:
        for name in self.names:
            component.get("properties", {}).pop(name, None)
            if name in component.get("required", []):
                component["required"].remove(name)


@dataclass(frozen=True)
class As01:
    names: tuple[str, ...]

    def apply(self, data: dict, obj, serializer) -> None:
        for name in self.names:
            if name in data and data[name] is not None:
                data[name] = 1 if data[name] else 0

    def schema(self, component: dict) -> None:
        for name in self.names:
            if name in component.get("properties", {}):
                component["properties"][name] = {"type": "integer", "enum": [0, 1], "readOnly": True}


@dataclass(frozen=True)
class Provide:
    name: str
    schema_of: dict

    def apply(self, data: dict, obj, serializer) -> None:
        value = getattr(serializer, f"wire_{self.name}")(obj)
        if isinstance(value, batch.Later):  # read once for the whole answer (apps.core.pipeline.batch)
            batch.fill(data, self.name, value)
        else:
            data[self.name] = value

    def schema(self, component: dict) -> None:
        _put(component, self.name, self.schema_of)


@dataclass(frozen=True)
class ProvideForNull(Provide):
    def apply(self, data: dict, obj, serializer) -> None:
        if data.get(self.name) is None:
            super().apply(data, obj, serializer)


@dataclass(frozen=True)
class Const:
    name: str
    value: object
    schema_of: dict

    def apply(self, data: dict, obj, serializer) -> None:
        data[self.name] = self.value

    def schema(self, component: dict) -> None:
        _put(component, self.name, self.schema_of)


def _put(component: dict, name: str, schema: dict) -> None:
    component.setdefault("properties", {})[name] = {**schema, "readOnly": True}
    required = component.setdefault("required", [])
    if name not in required:
        required.append(name)
        required.sort()


@dataclass(frozen=True)
class ItemsAlso:
    """An input list whose items may also take another form (what this version's answers show, sent back
    in a round-trip PATCH). The input field asks `has(version, kind)`; nothing changes in answers."""

    name: str
    item: dict

    def apply(self, data: dict, obj, serializer) -> None:
        pass

    def schema(self, component: dict) -> None:
        found = component.get("properties", {}).get(self.name)
        if found and "items" in found:
            found["items"] = {"oneOf": [found["items"], self.item]}


@dataclass(frozen=True)
class HitsOnly:
    """Search answers are always the object `{total, hits}` (`{"total": 0, "hits": []}` on no match):
    the answer itself is shaped by apps.core.pipeline.api.paginated_response, which asks `has(version, "Search")`."""

    def apply(self, data: dict, obj, serializer) -> None:
        pass

    def schema(self, component: dict) -> None:
        for variant in component.pop("oneOf", []):
            if variant.get("type") == "object":
                component.update(variant)
                component["properties"]["total"] = {"type": "integer", "minimum": 0}
                component["description"] = "Always `{total, hits}`; `{\"total\": 0, \"hits\": []}` on no match."


@dataclass(frozen=True)
class Kind:
    components: tuple[str, ...]  # the OpenAPI components its serializers produce
    changes: tuple


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


_BOOL = {"type": "boolean"}
_01 = {"type": "integer", "enum": [0, 1]}
_COUNT = {"type": "integer", "minimum": 0}
_TAG_OBJECT = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "tag": {"type": "string"},
        "url": {"type": "string"},
        "count": {"type": "integer"},
        "things_url": {"type": "string"},
        "absolute_url": {"type": "string"},
    },
    "required": ["name", "tag", "url", "count", "things_url", "absolute_url"],
}
_PARTS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"type": "string"},
            "name": {"type": "string"},
            "data": {"type": "array", "items": {"type": "object", "properties": {"content": {"type": "string"}}}},
        },
        "required": ["type", "name", "data"],
    },
}
_SUB_COLLECTIONS = ("files", "images", "likes", "derivatives", "categories")

# --- thingiverse: the live service's later shapes (its public OpenAPI document) ---------------------------
THINGIVERSE = {
    "ThingShort": Kind(
        ("ThingShort", "Favorite"),
        (
            As01(("is_published", "is_wip")),
            # The live short Thing's other fields that Thingyard has (docs/compatibility.md lists those it has not).
            Provide("created_at", {"type": "string", "format": "date-time"}),
            Provide("preview_image", {"type": "string"}),
            Provide("is_private", _01),
            Const("is_purchased", 0, _01),
            Provide("collect_count", _COUNT),
            Provide("make_count", _COUNT),
            Provide("comment_count", _COUNT),
            # Read for the whole answer in one statement (apps.core.pipeline.batch), never item by item.
            Provide("tags", {"type": "array", "items": _TAG_OBJECT}),
            Const("is_nsfw", False, {**_BOOL, "nullable": True}),
            # The live document's nullable rank: Thingyard's lists have no rank of their own.
            Const("rank", None, {"type": "integer", "nullable": True}),
        ),
    ),
    "Thing": Kind(
        ("Thing",),
        (
            Drop(_SUB_COLLECTIONS),
            As01(("is_published", "is_wip", "is_private")),
            Provide("tags", {"type": "array", "items": _TAG_OBJECT}),
            Provide("ancestors", {"type": "array", "items": _ref("ThingShort")}),
            Provide("details_parts", _PARTS),
            Provide("allows_derivatives", _BOOL),
            Provide("is_derivative", _BOOL),
            Provide("can_comment", _BOOL),
            Provide("is_featured", _BOOL),
            Const("is_nsfw", False, {**_BOOL, "nullable": True}),
            Const("type_name", "Thing", {"type": "string"}),
        ),
    ),
    "Tag": Kind(("Tag",), (Provide("absolute_url", {"type": "string"}),)),
    "Category": Kind(("Category",), (Provide("id", {"type": "integer"}),)),
    "User": Kind(
        ("User",),
        (
            Drop(("things", "copies", "likes")),  # the live user has only their *_url forms
            Provide("bio_html", {"type": "string"}),
            Provide("count_of_designs", {"type": "integer"}),
            Provide("count_of_followers", {"type": "integer"}),
            Provide("count_of_following", {"type": "integer"}),
            Provide("make_count", {"type": "integer", "description": "The copies `copies_url` lists for you."}),
            Provide("like_count", {"type": "integer", "description": "The Things `likes_url` lists for you."}),
            Provide("collection_count", {"type": "integer",
                                         "description": "The collections `/users/{username}/collections` lists for you."}),
            Provide("favorite_count", {"type": "integer", "description": "The Things `/users/{username}/favorites` "
                                       "lists for you (a favorite is a liked Thing)."}),
            Provide("has_favorite", {**_BOOL, "description": "Whether `favorite_count` is above 0."}),
            Provide("groups", {
                "type": "array",
                "items": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                                           "public_url": {"type": "string"}},
                          "required": ["id", "name", "public_url"]},
                "description": "The groups they are a member of that you may see, in the order they joined.",
            }),
            Provide("is_following", {**_BOOL, "description": "Whether the caller follows this user."}),
        ),
    ),
    "Make": Kind(
        ("Make", "MakeWithImages"),
        (
            Provide("description_html", {"type": "string"}),
            Provide("root_comment_count", {"type": "integer"}),
            Provide("name", {"type": "string", "description": "The Thing's name."}),
            Provide("preview_image", {"type": "string"}),
            Provide("details_parts", _PARTS),
            Provide("details", {"type": "string", "description": "HTML: the copy's description under its heading."}),
            Provide("category_name", {"type": "string", "description": "Its Thing's category; empty when none."}),
            Provide("category_url", {"type": "string", "description": "Its Thing's category (API URL); empty when none."}),
            Const("type_name", "Make", {"type": "string"}),
        ),
    ),
    # The live document types `parent_id` as an integer from 0 and `parent_url` as a string, neither nullable:
    # a top-level comment is `0` and `""` there (its `modified` uses `""` for "none" the same way).
    "Comment": Kind(
        ("Comment",),
        (
            Provide("target_type", {"type": "string", "enum": ["thing", "make", "grouptopic"],
                                    "description": "A group topic is `grouptopic`, the live service's name."}),
            Provide("parent_id", {"type": "integer", "minimum": 0, "description": "0 at the top level."}),
            Provide("parent_url", {"type": "string", "description": "Empty at the top level."}),
            Provide("is_root_comment", _BOOL),
            # Both read for the whole answer in one statement each (apps.core.pipeline.batch).
            Provide("public_url", {"type": "string", "description": "The comment on its Thing's, copy's or topic's page."}),
            Provide("has_children", {**_BOOL, "description": "Whether it has a reply you may see."}),
            Provide("parent_user_name", {"type": "string", "nullable": True,
                                         "description": "The username of the comment it replies to (null at the top level)."}),
        ),
    ),
    "Group": Kind(
        ("Group",),
        (
            Provide("creator", {"type": "integer", "description": "The creator's user id."}),
            # A string, never null: a group without an image shows the site's placeholder, as a Thing does.
            ProvideForNull(
                "image", {"type": "string", "description": "The group image URL (a placeholder when none)."}
            ),
            Provide("featured", {"type": "array", "items": _ref("ThingShort"),
                                 "description": "The group's featured Things you may see, in slot order."}),
            Provide("featured_images", {
                "type": "array",
                "items": {"type": "object", "properties": {"url_image": {"type": "string"},
                                                           "url_thing": {"type": "string"}},
                          "required": ["url_image", "url_thing"]},
                "description": "Each featured Thing's picture and page.",
            }),
        ),
    ),
    "GroupTopic": Kind(("GroupTopic",), (As01(("pinned",)),)),
    "Collection": Kind(("Collection",), (Provide("description_html", {"type": "string"}),)),
    # A Thing's tags sent back as the tag objects the answers show (round-trip PATCH): their `name`.
    "ThingInput": Kind(
        ("ThingCreateInputRequest", "PatchedThingUpdateInputRequest"),
        (ItemsAlso("tags", {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),),
    ),
    "Search": Kind(("SearchAnswer", "ThingSearchAnswer", "LibrarySearchAnswer"), (HitsOnly(),)),
    # The object-store POST answers 200: the descriptor's `action` is the service's relay
    # (apps.uploads.flow.services.upload_descriptor).
    "UploadRelay": Kind((), ()),
    # Paged lists answer 404 when the page has no item (apps.core.pipeline.api.paginated_response).
    "EmptyPage404": Kind((), ()),
    # A success with no body (a view's 204: deleting a collection, a make, one's account) answers the 'ok'
    # object (apps.core.pipeline.views.ApiView.finalize_response). The live document gives those deletes
    # its `ok` response, and a client generated from it parses every 200 as JSON: an empty body fails.
    "NoBodyOk": Kind((), ()),
    # Removing a Thing from a collection answers the Thing's id, an integer, where `spec` answers the 'ok'
    # object: the live document's answer (apps.thingcollections.views.CollectionThingView.delete).
    "RemovedThingId": Kind((), ()),
}

TABLES: dict[str, dict[str, Kind]] = {versions.SPEC: {}, versions.THINGIVERSE: THINGIVERSE}


def changes(version: str, kind: str) -> Kind | None:
    return TABLES.get(version, {}).get(kind)


def apply(kind: str, data: dict, obj, serializer) -> dict:
    """`data` (the spec shape of `obj`, built by `serializer`) in the version of the serializer's request."""
    found = changes(versions.of_context(serializer.context), kind)
    if found is None:
        return data
    for change in found.changes:
        change.apply(data, obj, serializer)
    return data


def _document_no_body_as_ok(result: dict) -> None:
    """"NoBodyOk" in the version's document: each success documented with no body is the 'ok' object."""
    for item in result.get("paths", {}).values():
        for operation in item.values():
            success = operation.get("responses", {}).get("200") if isinstance(operation, dict) else None
            if success is not None and "content" not in success and success.get("description") == NO_BODY_DESCRIPTION:
                success["description"] = "Success: the 'ok' object (in the `spec` version, an empty body)."
                success["content"] = {"application/json": {"schema": {"$ref": "#/components/schemas/Ok"}}}


# The operation "RemovedThingId" changes, as the document names its path.
COLLECTION_THING_PATH = "/collections/{collection_id}/thing/{thing_id}"


def _document_answer(result: dict, method: str, path: str, description: str, schema: dict) -> None:
    """The version's success body of one operation, in place of the one the views declare for `spec`."""
    success = result.get("paths", {}).get(path, {}).get(method, {}).get("responses", {}).get("200")
    if success is None:
        raise ValueError(f"{method.upper()} {path} is not in the document: the wire table names it")
    success["description"] = description
    success["content"] = {"application/json": {"schema": schema}}


def provides(version: str, kind: str, name: str) -> bool:
    """Whether `version` adds the key `name` to `kind` with a value the serializer computes (`Provide`)."""
    found = changes(version, kind)
    return found is not None and any(isinstance(c, Provide) and c.name == name for c in found.changes)


def has(version: str, kind: str) -> bool:
    """Whether `version` declares `kind` (a rule with no fields of its own, e.g. "Search")."""
    return changes(version, kind) is not None


def schema_hook(result, generator, request, public):
    """drf-spectacular postprocessing hook: the document of the version asked for (apps.core.pipeline.views)."""
    version = getattr(generator, "api_version", None) or versions.DEFAULT
    table = TABLES.get(version, {})
    schemas = result.get("components", {}).get("schemas", {})
    for kind in table.values():
        for name in kind.components:
            component = schemas.get(name)
            if component is None:
                continue
            for change in kind.changes:
                change.schema(component)
    if "NoBodyOk" in table:
        _document_no_body_as_ok(result)
    if "RemovedThingId" in table:
        _document_answer(result, "delete", COLLECTION_THING_PATH, "The id of the Thing removed.",
                         {"type": "integer", "minimum": 1})
    info = result.setdefault("info", {})
    others = ", ".join(f"[{v}](/docs/?version={v})" for v in versions.VERSIONS if v != version)
    info["description"] = info.get("description", "") + (
        f"\n\nThis is the document of the **`{version}`** wire version. Other versions: {others} "
        "(docs/compatibility.md: Wire versions)."
    )
    if version != versions.DEFAULT:
        info["version"] = f"{info.get('version', '')}+{version}"
        info["description"] = (
            f"**Wire version `{version}`** (send `Thingyard-Version: {version}`, or pin it on your app's page "
            "in the developer portal; docs/compatibility.md).\n\n" + info.get("description", "")
        )
    return result

