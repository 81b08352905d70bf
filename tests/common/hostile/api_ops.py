"""The API's writes as the OpenAPI schema has them: operations, their fields and kinds."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from drf_spectacular.generators import SchemaGenerator

from tests.common.hostile.corpus import RAW
from tests.pageforms import FIXED

# --- API: writes as the OpenAPI schema has them ----------------------------------------------


def api_verdict(response, name: str) -> tuple[str, str]:
    status = response.status_code
    if status >= 500:
        return "bad", f"{status}"
    if status < 300:
        return "accepted", f"{status}"
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return "bad", f"{status} is not JSON"
    if not isinstance(body, dict):
        return "bad", f"{status} body is not an object"
    if status == 400:
        if name not in body:
            return "bad", f"400 does not name the field: {str(body)[:120]}"
        return "refused", "400"
    if not body.get("detail"):
        return "bad", f"{status} without a detail"
    return "refused", f"{status}"


def json_body(data: dict) -> str:
    """JSON text; a value starting with RAW goes in as written (1e309 as a number)."""
    raws = {}

    def swap(value):
        if isinstance(value, str) and value.startswith(RAW):
            token = f"__raw{len(raws)}__"
            raws[token] = value[len(RAW) :]
            return token
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    text = json.dumps({k: swap(v) for k, v in data.items()})
    for token, raw in raws.items():
        text = text.replace(json.dumps(token), raw)
    return text


@dataclass
class ApiOp:
    method: str
    template: str
    path: str
    properties: dict  # name -> schema
    required: set
    multipart: bool
    as_admin: bool
    fuzzed: set = field(default_factory=set)  # the fields this operation gets the corpus on

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.template}"


def resolve_ref(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    for combiner in ("allOf", "oneOf", "anyOf"):
        if combiner in node:
            merged = {k: v for k, v in node.items() if k != combiner}
            for part in node[combiner]:
                part = resolve_ref(schema, part)
                if "enum" in part and "enum" in merged:
                    merged["enum"] = [*merged["enum"], *part["enum"]]
                elif part.get("type") != "null" or "enum" not in part:
                    merged = {**part, **merged}
            return merged
    return node


def api_kind(name: str, prop: dict) -> str:
    if name == "version":
        return "version"
    if "enum" in prop:
        return "choice"
    kind, fmt = prop.get("type"), prop.get("format")
    if kind == "array":
        return "list"
    if kind == "string":
        return {"decimal": "number", "date": "date", "date-time": "date", "uri": "url"}.get(
            fmt, "file" if fmt == "binary" else "text"
        )
    return {"integer": "integer", "number": "number", "boolean": "bool"}.get(kind, "object")


def share_fields(ops: list[ApiOp]) -> None:
    """Operations of one resource that take the same fields (a catalog type's POST, PUT and
    PATCH: one serializer) take turns: each field gets the corpus through one of them, in
    turn, so every field meets every value once and every operation meets some of them (each
    still sends its valid body)."""
    groups: dict[tuple, list[ApiOp]] = {}
    for op in ops:
        resource = re.sub(r"\{\w+\}/$", "", op.template)
        groups.setdefault((resource, frozenset(op.properties)), []).append(op)
    for group in groups.values():
        names = [
            n
            for n in group[0].properties
            if n not in FIXED and not same_field_as_english(n, group[0].properties)
        ]
        for i, name in enumerate(names):
            group[i % len(group)].fuzzed.add(name)


def discover_api_ops(paths_for) -> list[ApiOp]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    ops = []
    for template, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in ("post", "put", "patch") or "requestBody" not in operation:
                continue
            content = operation["requestBody"]["content"]
            media = "application/json" if "application/json" in content else next(iter(content))
            body = resolve_ref(schema, content[media]["schema"])
            properties = {}
            for name, prop in body.get("properties", {}).items():
                prop = resolve_ref(schema, prop)
                if "items" in prop:
                    prop = {**prop, "items": resolve_ref(schema, prop["items"])}
                if not prop.get("readOnly"):
                    properties[name] = prop
            ops.append(
                ApiOp(
                    method=method,
                    template=template,
                    path=paths_for(template),
                    properties=properties,
                    required=set(body.get("required", ())),
                    multipart=media == "multipart/form-data",
                    as_admin=template.startswith("/api/catalog/"),
                )
            )
    return ops


def same_field_as_english(name: str, properties: dict) -> bool:
    """`name_zh_hans` is `name_en` again: modeltranslation makes both from one model field, and
    the serializer treats them alike, so the corpus runs through the English one."""
    return name.endswith("_zh_hans") and name.removesuffix("_zh_hans") + "_en" in properties
